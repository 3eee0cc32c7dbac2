import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdDaemonLock, readDaemonLock } from '../../../daemon/store/daemon-lock.ts';
import { makeTempDir } from './temp-dir.ts';

/** The pid of a process that has exited: a daemon that crashed. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

function lockText(fields: Record<string, unknown>): string {
  return JSON.stringify({ host: hostname(), token: 'x', boot: null, started: null, ...fields });
}

describe('holdDaemonLock', () => {
  it('names this process in daemon.lock, 0600, and removes it on release', async () => {
    const dir = await makeTempDir();
    const held = await holdDaemonLock(dir);
    const state = await readDaemonLock(dir);
    expect(state).toMatchObject({ state: 'running', owner: { pid: process.pid, host: hostname() } });
    expect(statSync(held.path).mode & 0o777).toBe(0o600);
    await held.release();
    expect(await readdir(dir)).toEqual([]);
    expect(await readDaemonLock(dir)).toEqual({ state: 'none' });
  });

  it('refuses a second daemon on the same data dir, naming the process that holds it', async () => {
    const dir = await makeTempDir();
    const held = await holdDaemonLock(dir);
    try {
      await expect(holdDaemonLock(dir)).rejects.toMatchObject({
        code: 'daemon_running',
        message: expect.stringContaining(`process ${process.pid}`),
      });
    } finally {
      await held.release();
    }
  });

  it('replaces the lock of a daemon whose process is gone', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'daemon.lock'), lockText({ pid: deadPid() }), { mode: 0o600 });
    expect(await readDaemonLock(dir)).toMatchObject({ state: 'stale' });
    const held = await holdDaemonLock(dir);
    expect(JSON.parse(await readFile(held.path, 'utf8'))).toMatchObject({ pid: process.pid });
    await held.release();
  });

  it('judges a lock whose pid was reused by another process (another start time) stale', async () => {
    const dir = await makeTempDir();
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const started = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    await writeFile(join(dir, 'daemon.lock'), lockText({ pid: process.pid, started: started + 1 }));
    expect(await readDaemonLock(dir)).toMatchObject({ state: 'stale' });
    await writeFile(join(dir, 'daemon.lock'), lockText({ pid: process.pid, started }));
    expect(await readDaemonLock(dir)).toMatchObject({ state: 'running' });
  });

  it('judges a lock from an earlier boot stale, even when its pid runs now', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'daemon.lock'), lockText({ pid: process.pid, boot: 'an-earlier-boot' }));
    expect(await readDaemonLock(dir)).toMatchObject({ state: 'stale' });
  });

  it('keeps a lock held on another host, which it cannot judge, as running', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'daemon.lock'), lockText({ pid: deadPid(), host: 'elsewhere.invalid' }));
    expect(await readDaemonLock(dir)).toMatchObject({ state: 'running' });
    await expect(holdDaemonLock(dir)).rejects.toMatchObject({ code: 'daemon_running' });
  });

  it('replaces a lock that is garbage', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'daemon.lock'), '{ half-writ', { mode: 0o600 });
    expect(await readDaemonLock(dir)).toMatchObject({ state: 'stale', owner: null });
    const held = await holdDaemonLock(dir);
    expect(await readDaemonLock(dir)).toMatchObject({ state: 'running' });
    await held.release();
  });

  it('leaves a lock another daemon took alone on release', async () => {
    const dir = await makeTempDir();
    const held = await holdDaemonLock(dir);
    await writeFile(held.path, lockText({ pid: process.pid, token: 'someone-else' }));
    await held.release();
    expect(await readdir(dir)).toEqual(['daemon.lock']);
  });
});
