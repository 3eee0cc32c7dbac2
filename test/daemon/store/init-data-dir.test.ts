import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../../protocol/keys.ts';
import { readDataFile } from '../../../daemon/store/data-file.ts';
import { identityFile } from '../../../daemon/store/identity.ts';
import { initDataDir } from '../../../daemon/store/init-data-dir.ts';
import { modCredentialsFile } from '../../../daemon/store/mod-credentials.ts';
import { modKeysFile } from '../../../daemon/store/mod-keys.ts';
import { dataDirPath, makeTempDir } from './temp-dir.ts';

const FILES = ['identity.json', 'keys.json', 'mod-credentials.json', 'mod-keys.json', 'state.json'];

async function snapshotFiles(dir: string): Promise<Record<string, { text: string; ino: number }>> {
  const out: Record<string, { text: string; ino: number }> = {};
  for (const name of await readdir(dir)) {
    out[name] = { text: await readFile(join(dir, name), 'utf8'), ino: (await stat(join(dir, name))).ino };
  }
  return out;
}

describe('initDataDir', () => {
  it('creates every file with mode 0600 in a folder with mode 0700', async () => {
    const dir = await dataDirPath();
    const report = await initDataDir(dir, { name: 'eu-1' });
    expect([...report.created].sort()).toEqual(FILES);
    expect((await readdir(dir)).sort()).toEqual(FILES);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const name of FILES) expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
  });

  it('writes the documented initial contents', async () => {
    const dir = await dataDirPath();
    const now = new Date('2030-01-01T00:00:00Z');
    await initDataDir(dir, { name: 'eu-1', now });
    const read = async (name: string): Promise<unknown> =>
      JSON.parse(await readFile(join(dir, name), 'utf8'));
    expect(await read('identity.json')).toMatchObject({
      version: 1,
      server_id: expect.stringMatching(/^srv_[a-z0-9]{16}$/),
      name: 'eu-1',
      created_at: '2030-01-01T00:00:00.000Z',
    });
    expect(await read('state.json')).toEqual({
      api_enabled: false,
      plan: { premium: false, until: null, features: [] },
    });
    expect(await read('keys.json')).toEqual({ keys: [] });
    expect(await read('mod-credentials.json')).toMatchObject({ url: 'ws://127.0.0.1:8788' });
  });

  it('trusts the generated mod key and pins the daemon key in the mod credentials', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const identity = await readDataFile(dir, identityFile);
    const credentials = await readDataFile(dir, modCredentialsFile);
    const modKeys = await readDataFile(dir, modKeysFile);
    expect(encodeKey(credentials.daemonPublicKey)).toBe(encodeKey(identity.daemonPublicKey));
    expect(modKeys.trusted.map((entry) => encodeKey(entry.publicKey))).toEqual([
      encodeKey(credentials.identity.publicKey),
    ]);
  });

  it('changes nothing on a second run and reports that', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir, { name: 'eu-1' });
    const before = await snapshotFiles(dir);
    const report = await initDataDir(dir);
    expect(report.created).toEqual([]);
    expect(report.updated).toEqual([]);
    expect(await snapshotFiles(dir)).toEqual(before);
  });

  it('updates only the name when given a new one', async () => {
    const dir = await dataDirPath();
    const first = await initDataDir(dir, { name: 'eu-1' });
    const report = await initDataDir(dir, { name: 'eu-2' });
    expect(report.updated).toEqual(['name set to "eu-2"']);
    expect(report.identity).toMatchObject({ serverId: first.identity.serverId, name: 'eu-2' });
    expect(encodeKey(report.identity.daemonSecretKey)).toBe(encodeKey(first.identity.daemonSecretKey));
  });

  it('recreates a missing file and leaves the others alone', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    const before = await snapshotFiles(dir);
    await rm(join(dir, 'state.json'));
    const report = await initDataDir(dir);
    expect(report.created).toEqual(['state.json']);
    const after = await snapshotFiles(dir);
    for (const name of FILES.filter((file) => file !== 'state.json'))
      expect(after[name]).toEqual(before[name]);
  });

  it('refuses to overwrite a broken file', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    await writeFile(join(dir, 'keys.json'), 'not json');
    await expect(initDataDir(dir)).rejects.toThrow(/keys\.json is not valid JSON/);
    expect(await readFile(join(dir, 'keys.json'), 'utf8')).toBe('not json');
  });

  it('tightens an empty folder created with looser permissions', async () => {
    const dir = join(await makeTempDir(), 'data');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const report = await initDataDir(dir);
    expect(report.updated).toEqual(['folder permissions tightened from 0755 to 0700']);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('refuses a non-empty folder with looser permissions, with the chmod that fixes it', async () => {
    const dir = join(await makeTempDir(), 'data');
    await mkdir(dir);
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await expect(initDataDir(dir)).rejects.toThrow(`fix it with: chmod 700 ${dir}`);
  });
});
