import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../../cli/program.ts';
import type { DataDirWatcher } from '../../../daemon/store/data-dir-watcher.ts';
import type { StoreError } from '../../../daemon/store/errors.ts';
import { initDataDir } from '../../../daemon/store/init-data-dir.ts';
import { DataDir, type Snapshot } from '../../../daemon/store/data-dir.ts';
import { encodeKey } from '../../../protocol/keys.ts';
import { dataDirPath } from './temp-dir.ts';

/** A guard against a hung test, not a timing assertion: polling is every 250 ms. */
const EVENT_BOUND_MS = 5_000;

const opened: DataDirWatcher[] = [];
afterEach(() => {
  for (const watcher of opened.splice(0)) watcher.close();
});

async function open(dir: string, pollIntervalMs?: number): Promise<DataDirWatcher> {
  const dataDir = await DataDir.open(dir);
  const watcher = await dataDir.watch(pollIntervalMs === undefined ? {} : { pollIntervalMs });
  opened.push(watcher);
  return watcher;
}

function next<E extends 'change' | 'error'>(
  watcher: DataDirWatcher,
  event: E,
): Promise<E extends 'change' ? Snapshot : StoreError> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no '${event}' event within ${EVENT_BOUND_MS} ms`)),
      EVENT_BOUND_MS,
    );
    watcher.once(event, ((value: E extends 'change' ? Snapshot : StoreError) => {
      clearTimeout(timer);
      resolve(value);
    }) as never);
  });
}

async function cli(...argv: string[]): Promise<void> {
  const sink = { write: () => true };
  const code = await runCli(argv, { stdout: sink, stderr: sink, env: {} });
  expect(code).toBe(0);
}

describe('DataDir.watch', () => {
  it('loads identity, state, keys and trusted mod keys into one snapshot', async () => {
    const dir = await dataDirPath();
    const report = await initDataDir(dir, { name: 'eu-1' });
    const snapshot = (await open(dir)).current();
    expect(snapshot.identity.serverId).toBe(report.identity.serverId);
    expect(snapshot.state.apiEnabled).toBe(false);
    expect(snapshot.keysById.size).toBe(0);
    expect(snapshot.trustedModKeys).toHaveLength(1);
    expect(snapshot.loadedAt).toBeInstanceOf(Date);
  });

  it('refuses a data dir that was not initialised, saying to run modgate init', async () => {
    const dir = await dataDirPath();
    await expect(open(dir)).rejects.toThrow(`run \`modgate init --data-dir ${dir}\``);
  });
});

describe('DataDirWatcher', () => {
  it('sees a key created by the CLI without a restart', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    await cli('plan', 'set', '--data-dir', dir, '--premium', 'on');
    const watcher = await open(dir);
    const changed = next(watcher, 'change');
    await cli('keys', 'create', '--data-dir', dir, '--name', 'bot', '--scopes', 'server:read');
    const snapshot = await changed;
    expect(snapshot.keysById.size).toBe(1);
    expect(watcher.current()).toBe(snapshot);
  });

  it('sees the API being enabled by the CLI', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const watcher = await open(dir);
    const changed = next(watcher, 'change');
    await cli('api', 'enable', '--data-dir', dir);
    expect((await changed).state.apiEnabled).toBe(true);
  });

  it('keeps the last good snapshot and reports a broken file by name, then recovers', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const watcher = await open(dir);
    const good = watcher.current();
    const failed = next(watcher, 'error');
    await writeFile(join(dir, 'state.json'), '{ broken');
    const error = await failed;
    expect(error.message).toContain(`${join(dir, 'state.json')} is not valid JSON`);
    expect(error.message).toContain('still serving the data dir as loaded at');
    expect(watcher.current()).toBe(good);

    const recovered = next(watcher, 'change');
    const fixed = { api_enabled: true, plan: { premium: false, until: null, features: [] } };
    await writeFile(join(dir, 'state.json'), JSON.stringify(fixed));
    expect((await recovered).state.apiEnabled).toBe(true);
  });

  it('reports permissions loosened while running and keeps the last good snapshot', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const watcher = await open(dir);
    const good = watcher.current();
    const failed = next(watcher, 'error');
    await chmod(join(dir, 'keys.json'), 0o644);
    expect((await failed).message).toContain(`chmod 600 ${join(dir, 'keys.json')}`);
    expect(watcher.current()).toBe(good);
  });

  it('reloads at once on reload(), without waiting for a poll', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const watcher = await open(dir, 3_600_000);
    await cli('api', 'enable', '--data-dir', dir);
    await watcher.reload();
    expect(watcher.current().state.apiEnabled).toBe(true);
  });

  it('warns instead of throwing when a reload fails and nobody listens for errors', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const watcher = await open(dir, 3_600_000);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await writeFile(join(dir, 'keys.json'), '[]');
      await expect(watcher.reload()).resolves.toBeUndefined();
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining('keys.json is invalid'),
        'ModgateDataDirWarning',
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('exposes the trusted mod keys as raw bytes', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const [key] = (await open(dir)).current().trustedModKeys;
    expect(key).toBeInstanceOf(Uint8Array);
    expect(key).toHaveLength(32);
    expect(encodeKey(key!)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
