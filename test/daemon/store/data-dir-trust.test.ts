/**
 * What the data dir trusts (docs/data-dir.md): the folder and everything in it belong to the user
 * running modgate or to root, nothing in it is a symbolic link, nothing is writable by others. The
 * owner tests run as root (the suite does) and hand files to `nobody` with chown.
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { chmod, chown, mkdir, open, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENTS_FOLDER as SEGMENTS_FOLDER } from '../../../daemon/events/segments.ts';
import { readDataFile } from '../../../daemon/store/data-file.ts';
import { stateFile } from '../../../daemon/store/state.ts';
import { EVENTS_FOLDER } from '../../../daemon/store/data-dir-trust.ts';
import { assertDataDirReady, resolveDataDir } from '../../../daemon/store/data-dir.ts';
import { initDataDir } from '../../../daemon/store/init-data-dir.ts';
import { openDataFile, openDataFileSyncForReading } from '../../../daemon/store/data-dir-fs.ts';
import { dataDirPath, makeTempDir } from './temp-dir.ts';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

async function readyDir(): Promise<string> {
  const dir = await dataDirPath();
  await initDataDir(dir);
  return dir;
}

describe('the data dir refuses what it cannot trust', () => {
  it.runIf(asRoot)('refuses a data dir owned by another user, naming it and the fix', async () => {
    const dir = await readyDir();
    await chown(dir, NOBODY, NOBODY);
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'untrusted_owner',
      message: `${dir} is owned by nobody, but modgate runs as root and trusts only what belongs to that user or to root; fix it with: run modgate as its owner: sudo -u nobody modgate …, or take it over: chown -R root ${dir}`,
    });
  });

  it.runIf(asRoot)('refuses a file in it owned by another user', async () => {
    const dir = await readyDir();
    await chown(join(dir, 'state.json'), NOBODY, NOBODY);
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'untrusted_owner',
      message: `${join(dir, 'state.json')} is owned by nobody, but modgate runs as root and trusts only what belongs to that user or to root; fix it with: chown root ${join(dir, 'state.json')} (and find out who put it there)`,
    });
  });

  it.runIf(asRoot)('refuses an event segment owned by another user', async () => {
    const dir = await readyDir();
    await mkdir(join(dir, EVENTS_FOLDER), { mode: 0o700 });
    await writeFile(join(dir, EVENTS_FOLDER, 'segment-1.jsonl'), '', { mode: 0o600 });
    await chown(join(dir, EVENTS_FOLDER, 'segment-1.jsonl'), NOBODY, NOBODY);
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({ code: 'untrusted_owner' });
  });

  it('refuses anything in it that group or others may write, with the chmod that fixes it', async () => {
    const dir = await readyDir();
    await mkdir(join(dir, 'backups'));
    await chmod(join(dir, 'backups'), 0o775);
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'insecure_permissions',
      message: `${join(dir, 'backups')} is writable by other users (mode 0775); fix it with: chmod go-w ${join(dir, 'backups')}`,
    });
  });

  it('refuses an events folder that other users may enter', async () => {
    const dir = await readyDir();
    await mkdir(join(dir, EVENTS_FOLDER));
    await chmod(join(dir, EVENTS_FOLDER), 0o755);
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'insecure_permissions',
      message: expect.stringContaining(`fix it with: chmod 700 ${join(dir, EVENTS_FOLDER)}`),
    });
  });

  it('refuses a state file that is a symbolic link, even to a private file', async () => {
    const dir = await readyDir();
    const outside = join(await makeTempDir(), 'keys.json');
    await rename(join(dir, 'keys.json'), outside);
    await symlink(outside, join(dir, 'keys.json'));
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'symlink',
      message: `${join(dir, 'keys.json')} is a symbolic link, and modgate follows no link inside its data dir (one could aim its reads and writes at any file); fix it with: rm ${join(dir, 'keys.json')}, then put the real file there (from a backup, or \`modgate init\` for a data file)`,
    });
  });

  it.each(['audit.jsonl', 'idempotency.jsonl', 'webhook-outbox.jsonl', '.lock', 'notes'])(
    'refuses a symbolic link named %s',
    async (name) => {
      const dir = await readyDir();
      await symlink('/etc/passwd', join(dir, name));
      await expect(assertDataDirReady(dir)).rejects.toMatchObject({ code: 'symlink' });
    },
  );

  it('refuses a symbolic link inside the events folder, and an events folder that is one', async () => {
    const dir = await readyDir();
    await mkdir(join(dir, EVENTS_FOLDER), { mode: 0o700 });
    await symlink('/etc/passwd', join(dir, EVENTS_FOLDER, 'segment-1.jsonl'));
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({ code: 'symlink' });

    const other = await readyDir();
    await symlink(await makeTempDir(), join(other, EVENTS_FOLDER));
    await expect(assertDataDirReady(other)).rejects.toMatchObject({ code: 'symlink' });
  });

  it('uses a data dir reached through a link as the real folder behind it', async () => {
    const dir = await readyDir();
    const link = join(await makeTempDir(), 'link');
    await symlink(dir, link);
    expect(resolveDataDir(link, {})).toBe(dir);
    await expect(assertDataDirReady(resolveDataDir(link, {}))).resolves.toBeUndefined();
  });

  it('names the events folder as the event log does', () => {
    expect(EVENTS_FOLDER).toBe(SEGMENTS_FOLDER);
  });
});

describe('opening files in the data dir', () => {
  it('reads no data file through a symbolic link', async () => {
    const dir = await readyDir();
    await rename(join(dir, 'state.json'), join(dir, 'target'));
    await symlink(join(dir, 'target'), join(dir, 'state.json'));
    await expect(readDataFile(dir, stateFile)).rejects.toMatchObject({ code: 'symlink' });
  });
});

describe('the data dir refuses an entry that is not of its kind', () => {
  const mkfifo = (path: string) => execFileSync('mkfifo', ['-m', '600', path]);

  it('refuses a named pipe at a state file, instead of hanging on it', async () => {
    const dir = await readyDir();
    const keys = join(dir, 'keys.json');
    await rm(keys);
    mkfifo(keys);
    await expect(assertDataDirReady(dir)).rejects.toMatchObject({
      code: 'wrong_file_type',
      message: `${keys} is a named pipe (FIFO), where modgate keeps a regular file; fix it with: rm ${keys}, then put the real file there (from a backup, or \`modgate init\` for a data file)`,
    });
  });

  it('refuses a folder at a record file and a file where the events folder belongs', async () => {
    const dir = await readyDir();
    await mkdir(join(dir, 'audit.jsonl'), { mode: 0o700 });
    await writeFile(join(dir, EVENTS_FOLDER), '', { mode: 0o600 });
    const refusal = assertDataDirReady(dir);
    await expect(refusal).rejects.toMatchObject({ code: 'wrong_file_type' });
    const message = ((await refusal.catch((error: unknown) => error)) as Error).message;
    expect(message).toContain(`${join(dir, 'audit.jsonl')} is a folder, where modgate keeps a regular file`);
    expect(message).toContain(`${join(dir, EVENTS_FOLDER)} is a regular file, where modgate keeps a folder`);
  });

  it('refuses a socket or a pipe anywhere in it, also under a name it does not know', async () => {
    const dir = await readyDir();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'audit.jsonl'), resolve));
    mkfifo(join(dir, 'notes'));
    try {
      const message = ((await assertDataDirReady(dir).catch((error: unknown) => error)) as Error).message;
      expect(message).toContain(
        `${join(dir, 'audit.jsonl')} is a socket, where modgate keeps a regular file`,
      );
      expect(message).toContain(
        `${join(dir, 'notes')} is a named pipe (FIFO), where modgate keeps only files and folders`,
      );
    } finally {
      server.close();
    }
  });

  it('opens no pipe planted at a file name while it runs: the open fails at once, nothing is written', async () => {
    const dir = await readyDir();
    const audit = join(dir, 'audit.jsonl');
    mkfifo(audit);
    await expect(openDataFile(audit, 'append')).rejects.toMatchObject({ code: 'wrong_file_type' });
    const reader = await open(audit, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      // With a reader on the pipe the open itself succeeds: the file-type check still refuses it.
      await expect(openDataFile(audit, 'append')).rejects.toMatchObject({
        code: 'wrong_file_type',
        message: expect.stringContaining(`${audit} is a named pipe (FIFO)`) as unknown,
      });
      expect(() => openDataFileSyncForReading(audit)).toThrow(/is a named pipe \(FIFO\)/);
    } finally {
      await reader.close();
    }
  });
});
