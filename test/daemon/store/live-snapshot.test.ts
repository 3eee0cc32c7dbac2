import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../cli/program.ts';
import { initDataDir } from '../../../daemon/store/init-data-dir.ts';
import { DataDir, type Snapshot } from '../../../daemon/store/data-dir.ts';
import type { LiveSnapshot } from '../../../daemon/store/live-snapshot.ts';
import { encodeKey } from '../../../protocol/keys.ts';
import { dataDirPath } from './temp-dir.ts';

async function load(dir: string): Promise<LiveSnapshot> {
  return (await DataDir.open(dir)).load();
}

async function cli(...argv: string[]): Promise<void> {
  const sink = { write: () => true };
  const code = await runCli(argv, { stdout: sink, stderr: sink, env: {} });
  expect(code).toBe(0);
}

/** Collects every snapshot `live` announces from now on. */
function changes(live: LiveSnapshot): Snapshot[] {
  const seen: Snapshot[] = [];
  live.on('change', (snapshot) => seen.push(snapshot));
  return seen;
}

describe('DataDir.load', () => {
  it('loads identity, state, keys and trusted mod keys into one snapshot', async () => {
    const dir = await dataDirPath();
    const report = await initDataDir(dir, { name: 'eu-1' });
    const snapshot = (await load(dir)).current();
    expect(snapshot.identity.serverId).toBe(report.identity.serverId);
    expect(snapshot.state.apiEnabled).toBe(false);
    expect(snapshot.keysById.size).toBe(0);
    expect(snapshot.trustedModKeys).toHaveLength(1);
    expect(snapshot.loadedAt).toBeInstanceOf(Date);
  });

  it('exposes the trusted mod keys as raw bytes', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const [key] = (await load(dir)).current().trustedModKeys;
    expect(key).toBeInstanceOf(Uint8Array);
    expect(key).toHaveLength(32);
    expect(encodeKey(key!)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});

describe('LiveSnapshot', () => {
  it('keeps serving what it loaded until reload() is called: nothing polls the files', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const live = await load(dir);
    const seen = changes(live);
    await cli('api', 'enable', '--data-dir', dir);
    expect(live.current().state.apiEnabled).toBe(false);
    expect(seen).toHaveLength(0);
    const reloaded = await live.reload();
    expect(reloaded.state.apiEnabled).toBe(true);
    expect(live.current()).toBe(reloaded);
    expect(seen).toEqual([reloaded]);
  });

  it('refuses a reload that finds a broken file, naming it, and keeps the last good snapshot', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const live = await load(dir);
    const good = live.current();
    const seen = changes(live);
    await writeFile(join(dir, 'state.json'), '{ broken');
    const refused = live.reload();
    await expect(refused).rejects.toThrow(`${join(dir, 'state.json')} is not valid JSON`);
    await expect(refused).rejects.toThrow('still serving the data dir as loaded at');
    expect(live.current()).toBe(good);
    expect(seen).toHaveLength(0);

    const fixed = { api_enabled: true, plan: { premium: false, until: null, features: [] } };
    await writeFile(join(dir, 'state.json'), JSON.stringify(fixed));
    expect((await live.reload()).state.apiEnabled).toBe(true);
  });

  it('refuses a reload after permissions were loosened and keeps the last good snapshot', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const live = await load(dir);
    const good = live.current();
    await chmod(join(dir, 'keys.json'), 0o644);
    await expect(live.reload()).rejects.toMatchObject({ code: 'insecure_permissions' });
    expect(live.current()).toBe(good);
  });

  it('applies concurrent reloads in the order they were asked for', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const live = await load(dir);
    const first = live.reload();
    await cli('api', 'enable', '--data-dir', dir);
    const second = live.reload();
    await Promise.all([first, second]);
    expect(live.current()).toBe(await second);
    expect(live.current().state.apiEnabled).toBe(true);
  });
});
