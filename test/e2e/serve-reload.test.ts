/**
 * `modgate serve --config FILE` as an operator runs it: SIGHUP applies a changed config without a
 * restart, a broken one is refused and the running settings stay, SIGTERM exits 0.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../harness/stack.ts';
import { freePort } from '../../harness/ports.ts';
import { runOk } from '../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../harness/data-dir.ts';
import { start, type ModgateProcess } from '../../harness/processes.ts';

describe('serve with a config file', () => {
  let dir: string;
  let config: string;
  let port: number;
  let key: string;
  let serve: ModgateProcess;
  const policy = async () =>
    (
      await fetch(`http://127.0.0.1:${port}/v1/players`, { headers: { authorization: `Bearer ${key}` } })
    ).headers.get('ratelimit-policy');
  const writeConfig = (limit: number | string) =>
    writeFile(
      config,
      `[api]\nlisten = "127.0.0.1:${port}"\n[rate_limit]\nper_key = { limit = ${limit}, window_sec = 60 }\n[mod_link]\nlisten = "127.0.0.1:0"\n`,
    );

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-reload-e2e-'));
    const data = await premiumDataDir(join(dir, 'data'));
    await runOk(['api', 'enable', '--data-dir', data]);
    key = (await createKey(data, '--name', 'ops', '--scopes', 'players:read')).key;
    port = await freePort();
    config = join(dir, 'modgate.toml');
    await writeConfig(100);
    serve = start(['serve', '--data-dir', data, '--config', config]);
    await eventually(() => serve.output().includes('"msg":"listening"'));
  });

  afterAll(async () => {
    if (serve.exitCode === null) serve.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('serves with the file’s settings', async () => {
    expect(await policy()).toBe('100;w=60');
  });

  it('applies a changed file on SIGHUP, without a restart', async () => {
    await writeConfig(7);
    serve.kill('SIGHUP');
    await eventually(async () => (await policy()) === '7;w=60');
    expect(serve.output()).toContain('"msg":"reloaded"');
  });

  it('refuses a broken file on SIGHUP and keeps the running settings', async () => {
    await writeConfig('"many"');
    serve.kill('SIGHUP');
    await eventually(() => serve.output().includes('reload refused'));
    expect(await policy()).toBe('7;w=60');
  });

  it('refuses the whole reload when a data file is broken: the changed config waits too', async () => {
    await writeConfig(9);
    const state = join(dir, 'data', 'state.json');
    const good = await readFile(state, 'utf8');
    await writeFile(state, '{ "api_enabled": tru');
    const refusals = serve.output().split('reload refused').length;
    serve.kill('SIGHUP');
    await eventually(() => serve.output().split('reload refused').length > refusals);
    expect(await policy()).toBe('7;w=60');
    await writeFile(state, good);
    serve.kill('SIGHUP');
    await eventually(async () => (await policy()) === '9;w=60');
  });

  it('stops on SIGTERM with exit code 0', async () => {
    serve.kill('SIGTERM');
    const [code] = (await once(serve, 'exit')) as [number];
    expect(code).toBe(0);
    expect(serve.output()).toContain('"msg":"stopped"');
  });
});
