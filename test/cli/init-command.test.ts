import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirPath } from '../daemon/store/temp-dir.ts';
import { run, runOk } from '../../harness/cli.ts';

const FILES = ['identity.json', 'keys.json', 'mod-credentials.json', 'mod-keys.json', 'state.json'];

describe('modgate init', () => {
  it('creates every file and prints the server id and the next steps', async () => {
    const dir = await dataDirPath();
    const stdout = await runOk(['init', '--data-dir', dir, '--name', 'eu-1']);
    expect((await readdir(dir)).sort()).toEqual(FILES);
    const identity = JSON.parse(await readFile(join(dir, 'identity.json'), 'utf8')) as { server_id: string };
    expect(stdout).toContain(`Initialised modgate data dir ${dir}`);
    expect(stdout).toContain(`server id: ${identity.server_id} (eu-1)`);
    expect(stdout).toContain(`modgate plan set --data-dir ${dir} --premium on`);
    expect(stdout).toContain(join(dir, 'mod-credentials.json'));
  });

  it('changes nothing on a second run and says so', async () => {
    const dir = await dataDirPath();
    await runOk(['init', '--data-dir', dir]);
    const before = await Promise.all(FILES.map((name) => stat(join(dir, name))));
    const stdout = await runOk(['init', '--data-dir', dir]);
    expect(stdout).toMatch(/is already initialised \(server srv_[a-z0-9]{16}\); nothing changed\.\n$/);
    const after = await Promise.all(FILES.map((name) => stat(join(dir, name))));
    expect(after.map((file) => [file.ino, file.mtimeMs])).toEqual(
      before.map((file) => [file.ino, file.mtimeMs]),
    );
  });

  it('renames the server when run again with --name', async () => {
    const dir = await dataDirPath();
    await runOk(['init', '--data-dir', dir, '--name', 'eu-1']);
    expect(await runOk(['init', '--data-dir', dir, '--name', 'eu-2'])).toContain('name set to "eu-2"');
    expect(JSON.parse(await readFile(join(dir, 'identity.json'), 'utf8'))).toMatchObject({ name: 'eu-2' });
  });

  it("writes --mod-listen into mod-credentials.json's url, and rewrites it when run again", async () => {
    const dir = await dataDirPath();
    const url = async () =>
      (JSON.parse(await readFile(join(dir, 'mod-credentials.json'), 'utf8')) as { url: string }).url;
    await runOk(['init', '--data-dir', dir, '--mod-listen', '127.0.0.1:9788']);
    expect(await url()).toBe('ws://127.0.0.1:9788');
    const stdout = await runOk(['init', '--data-dir', dir, '--mod-listen', '0.0.0.0:9799']);
    expect(stdout).toContain('url in mod-credentials.json set to ws://127.0.0.1:9799');
    expect(await url()).toBe('ws://127.0.0.1:9799');
  });

  it('keeps the default url of 127.0.0.1:8788 without --mod-listen', async () => {
    const dir = await dataDirPath();
    await runOk(['init', '--data-dir', dir]);
    const file = JSON.parse(await readFile(join(dir, 'mod-credentials.json'), 'utf8')) as { url: string };
    expect(file.url).toBe('ws://127.0.0.1:8788');
  });

  it('prints one JSON object with --json', async () => {
    const dir = await dataDirPath();
    const result = JSON.parse(await runOk(['init', '--data-dir', dir, '--json'])) as Record<string, unknown>;
    expect(result).toMatchObject({ data_dir: dir, name: null, changed: true, updated: [] });
    expect(result.server_id).toMatch(/^srv_/);
    expect(JSON.parse(await runOk(['init', '--data-dir', dir, '--json']))).toMatchObject({
      changed: false,
      created: [],
    });
  });

  it('takes the data dir from MODGATE_DATA_DIR', async () => {
    const dir = await dataDirPath();
    await runOk(['init'], { env: { MODGATE_DATA_DIR: dir } });
    expect((await readdir(dir)).sort()).toEqual(FILES);
  });

  it('exits 2 with one line on stderr when no data dir is given', async () => {
    const result = await run(['init']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: no data dir given: pass --data-dir DIR or set MODGATE_DATA_DIR (create one with `modgate init --data-dir DIR`)\n',
    );
  });

  it('exits 2 on an empty --name', async () => {
    const result = await run(['init', '--data-dir', await dataDirPath(), '--name', ' ']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: option '--name <name>' argument ' ' is invalid\. must not be empty\n$/,
    );
  });
});
