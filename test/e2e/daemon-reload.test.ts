/**
 * A running `modgate serve` reads its data files at start and when told to (`modgate reload`,
 * SIGHUP), never by polling them: a hand edit counts from the next reload, a broken one is
 * refused whole while the daemon keeps serving what it had, and a second serve on the same data
 * dir is refused by the daemon lock.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../harness/cli.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { launchServe, startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

describe('modgate reload', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;
  let apiPort: number;
  let key: string;
  const status = async () =>
    (await fetch(`http://127.0.0.1:${apiPort}/v1/server`, { headers: { authorization: `Bearer ${key}` } }))
      .status;
  const statePath = () => join(data.dir, 'state.json');
  const editState = async (change: (state: Record<string, unknown>) => Record<string, unknown>) =>
    writeFile(statePath(), JSON.stringify(change(JSON.parse(await readFile(statePath(), 'utf8')))));

  beforeAll(async () => {
    data = await makeDataDir();
    key = (await data.createKey('--name', 'ops', '--scopes', 'server:read')).key;
    ({ serve, apiPort } = await startServe(data.dir));
  }, 60_000);

  afterAll(async () => {
    await stop(serve);
    await data.remove();
  });

  it('leaves a hand edit unseen until reload: nothing polls the files', async () => {
    expect(await status()).not.toBe(404);
    await editState((state) => ({ ...state, api_enabled: false }));
    await sleep(1_500); // six polls of the watcher this replaces
    expect(await status()).not.toBe(404);
  });

  it('applies the hand edit when asked, and says which daemon it asked', async () => {
    const result = await run(['reload', '--data-dir', data.dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Asked the modgate daemon (process ${serve.pid}) serving ${data.dir} to reload`,
    );
    await eventually(async () => (await status()) === 404, 10_000);
    await eventually(() => serve.output().includes('"msg":"reloaded"'), 10_000);
  });

  it('refuses a reload that finds a broken file, keeps serving what it had, and logs the file', async () => {
    await editState((state) => ({ ...state, api_enabled: true }));
    expect((await run(['reload', '--data-dir', data.dir])).code).toBe(0);
    await eventually(async () => (await status()) !== 404, 10_000);

    await writeFile(statePath(), '{ "api_enabled": false, ');
    const reloaded = await run(['reload', '--data-dir', data.dir, '--json']);
    expect(JSON.parse(reloaded.stdout)).toMatchObject({ signalled: true, pid: serve.pid });
    await eventually(() => serve.output().includes('reload refused'), 10_000);
    expect(serve.output()).toContain(`${statePath()} is not valid JSON`);
    expect(serve.exitCode).toBeNull();
    expect(await status()).not.toBe(404);
    expect((await fetch(`http://127.0.0.1:${apiPort}/healthz`)).status).toBe(200);
  });

  it('refuses a second serve on the same data dir, naming the process that serves it', async () => {
    const second = await launchServe(data.dir);
    expect(await second.serve.exited()).toBe(1);
    expect(second.serve.output()).toContain(
      `another modgate serve is running on this data dir, ${data.dir} (process ${serve.pid} on `,
    );
  });
});

describe('modgate reload without a daemon', () => {
  it('exits 1 saying no daemon serves the data dir', async () => {
    const data = await makeDataDir();
    try {
      const result = await run(['reload', '--data-dir', data.dir, '--json']);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'daemon_not_running' } });
    } finally {
      await data.remove();
    }
  });
});
