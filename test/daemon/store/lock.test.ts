import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withDataDirLock } from '../../../daemon/store/lock.ts';
import { makeTempDir } from './temp-dir.ts';

async function increment(dir: string): Promise<void> {
  const path = join(dir, 'counter');
  const value = Number(await readFile(path, 'utf8').catch(() => '0'));
  await sleep(Math.random() * 5); // widen the read-modify-write window
  await writeFile(path, String(value + 1));
}

describe('withDataDirLock', () => {
  it('serialises concurrent read-modify-writes so no update is lost', async () => {
    const dir = await makeTempDir();
    await Promise.all(Array.from({ length: 20 }, () => withDataDirLock(dir, () => increment(dir))));
    expect(await readFile(join(dir, 'counter'), 'utf8')).toBe('20');
  });

  it('removes the lock file afterwards, also when the task throws', async () => {
    const dir = await makeTempDir();
    await expect(withDataDirLock(dir, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);
  });

  it('waits for a held lock and proceeds once it is released', async () => {
    const dir = await makeTempDir();
    const order: string[] = [];
    let release!: () => void;
    const holder = withDataDirLock(dir, async () => {
      order.push('first in');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first out');
    });
    await sleep(20);
    const waiter = withDataDirLock(dir, async () => {
      order.push('second in');
    });
    await sleep(60);
    expect(order).toEqual(['first in']);
    release();
    await Promise.all([holder, waiter]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });

  it('breaks a lock older than the stale timeout', async () => {
    const dir = await makeTempDir();
    const lock = join(dir, '.lock');
    await writeFile(lock, JSON.stringify({ token: 'old', pid: process.pid, host: hostname() }));
    const past = new Date(Date.now() - 60_000);
    await utimes(lock, past, past);
    await expect(withDataDirLock(dir, async () => 'ran', { staleMs: 10_000 })).resolves.toBe('ran');
    expect(await readdir(dir)).toEqual([]);
  });

  it('breaks a fresh lock whose owner process no longer exists on this host', async () => {
    const dir = await makeTempDir();
    await writeFile(
      join(dir, '.lock'),
      JSON.stringify({ token: 'gone', pid: 2 ** 22 + 7, host: hostname() }),
    );
    await expect(withDataDirLock(dir, async () => 'ran')).resolves.toBe('ran');
  });

  it('gives up on a live lock after the timeout, naming the lock file', async () => {
    const dir = await makeTempDir();
    await writeFile(
      join(dir, '.lock'),
      JSON.stringify({ token: 'live', pid: process.pid, host: hostname() }),
    );
    await expect(withDataDirLock(dir, async () => 'ran', { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'locked',
      message: expect.stringContaining(
        `by process ${process.pid} on ${hostname()}; if no other modgate command is running, delete ${join(dir, '.lock')}`,
      ),
    });
  });
});
