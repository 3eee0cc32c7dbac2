import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertDataDirReady, DataDir, resolveDataDir } from '../../../daemon/store/data-dir.ts';
import { initDataDir } from '../../../daemon/store/init-data-dir.ts';
import { stateFile } from '../../../daemon/store/state.ts';
import { dataDirPath, makeTempDir } from './temp-dir.ts';

describe('resolveDataDir', () => {
  it('takes --data-dir first, then MODGATE_DATA_DIR, as an absolute path', () => {
    expect(resolveDataDir('/srv/a', { MODGATE_DATA_DIR: '/srv/b' })).toBe('/srv/a');
    expect(resolveDataDir(undefined, { MODGATE_DATA_DIR: '/srv/b' })).toBe('/srv/b');
    expect(resolveDataDir('relative', {})).toBe(join(process.cwd(), 'relative'));
  });

  it('asks for --data-dir or MODGATE_DATA_DIR when neither is given', () => {
    expect(() => resolveDataDir(undefined, { MODGATE_DATA_DIR: '' })).toThrow(
      expect.objectContaining({
        code: 'data_dir_required',
        message: expect.stringContaining('pass --data-dir DIR or set MODGATE_DATA_DIR'),
      }),
    );
  });
});

describe('assertDataDirReady', () => {
  it('says to run modgate init for a folder that does not exist', async () => {
    const dir = await dataDirPath();
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'not_initialised',
      message: `${dir} is not an initialised modgate data dir; run \`modgate init --data-dir ${dir}\` first`,
    });
  });

  it('says to run modgate init for an empty folder', async () => {
    const dir = await makeTempDir();
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({ code: 'not_initialised' });
  });

  it('names a file that has gone missing', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    await rm(join(dir, 'keys.json'));
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'missing_file',
      message: expect.stringContaining(`${join(dir, 'keys.json')} is missing; run \`modgate init`),
    });
  });

  it('refuses a folder that other users can read, with the chmod that fixes it', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    await chmod(dir, 0o755);
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'insecure_permissions',
      message: `${dir} is accessible to other users (mode 0755); fix it with: chmod 700 ${dir}`,
    });
  });

  it('refuses files that other users can read, naming each with the chmod that fixes it', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    await chmod(join(dir, 'keys.json'), 0o644);
    await chmod(join(dir, 'identity.json'), 0o660);
    const error = await assertDataDirReady(dir).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'insecure_permissions' });
    expect((error as Error).message).toMatch(/accessible to other users; fix it with: chmod 600 /);
    expect((error as Error).message).toContain(join(dir, 'keys.json'));
    expect((error as Error).message).toContain(join(dir, 'identity.json'));
  });

  it.each(['idempotency.jsonl', 'audit.jsonl', 'webhook-outbox.jsonl'])(
    'refuses %s readable by other users, as it refuses state.json',
    async (name) => {
      const dir = await dataDirPath();
      await initDataDir(dir);
      await writeFile(join(dir, name), '', { mode: 0o644 });
      await chmod(join(dir, name), 0o644);
      await expect(assertDataDirReady(dir)).rejects.toMatchObject({
        code: 'insecure_permissions',
        message: `${join(dir, name)} is accessible to other users; fix it with: chmod 600 ${join(dir, name)}`,
      });
    },
  );

  it('accepts an initialised data dir', async () => {
    const dir = await dataDirPath();
    await initDataDir(dir);
    await mkdir(join(dir, 'backups'), { mode: 0o755 }); // folders the operator adds are not ours to judge
    await expect(assertDataDirReady(dir)).resolves.toBeUndefined();
  });
});

describe('DataDir', () => {
  async function initialisedDir(): Promise<string> {
    const dir = await dataDirPath();
    await initDataDir(dir);
    return dir;
  }

  it('refuses a folder that was not initialised when it is opened', async () => {
    const dir = await dataDirPath();
    await expect(DataDir.open(dir)).rejects.toMatchObject({ code: 'not_initialised' });
  });

  it('opens a data dir reached through a link as the real folder behind it', async () => {
    const dir = await initialisedDir();
    const link = join(await makeTempDir(), 'link');
    await symlink(dir, link);
    const dataDir = await DataDir.open(link);
    expect(dataDir.path).toBe(dir);
    expect((await dataDir.read(stateFile)).apiEnabled).toBe(false);
  });

  it('writes a changed file under the lock and says whether anything changed', async () => {
    const dataDir = await DataDir.open(await initialisedDir());
    const enabled = await dataDir.update(stateFile, (state) => ({ ...state, apiEnabled: true }));
    expect(enabled).toMatchObject({
      before: { apiEnabled: false },
      after: { apiEnabled: true },
      changed: true,
    });
    const again = await dataDir.update(stateFile, (state) => ({ ...state, apiEnabled: true }));
    expect(again.changed).toBe(false);
    expect((await dataDir.read(stateFile)).apiEnabled).toBe(true);
  });

  it('checks the folder again for every snapshot, so a file loosened after opening is refused', async () => {
    const dir = await initialisedDir();
    const dataDir = await DataDir.open(dir);
    await expect(dataDir.snapshot()).resolves.toMatchObject({ state: { apiEnabled: false } });
    await chmod(join(dir, 'keys.json'), 0o644);
    await expect(dataDir.snapshot()).rejects.toMatchObject({ code: 'insecure_permissions' });
  });
});
