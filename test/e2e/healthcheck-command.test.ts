/**
 * `modgate healthcheck` against a real `modgate serve` process: plain HTTP on loopback, HTTPS on
 * a wildcard address from the config file (as the container image runs it), `--require-mod`,
 * and the failures a container runtime must see as exit 1.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../harness/cli.ts';
import { premiumDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { start, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

let work: string;
/** One data dir per serve: a data dir has one daemon (its daemon.lock refuses a second). */
let dirs: string[];
let plainPort: number;
let tlsPort: number;
let config: string;
const running: ModgateProcess[] = [];

function serve(dir: string, ...args: string[]): ModgateProcess {
  const child = start(['serve', '--data-dir', dir, '--mod-listen', '127.0.0.1:0', ...args]);
  running.push(child);
  return child;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'modgate-healthcheck-'));
  dirs = [await premiumDataDir(join(work, 'plain')), await premiumDataDir(join(work, 'tls'))];
  const pems = await generate([{ name: 'commonName', value: 'modgate.example' }], { keyType: 'ec' });
  await writeFile(join(work, 'fullchain.pem'), pems.cert);
  await writeFile(join(work, 'privkey.pem'), pems.private, { mode: 0o600 });
  [plainPort, tlsPort] = [await freePort(), await freePort()];
  config = join(work, 'modgate.toml');
  await writeFile(
    config,
    [
      '[api]',
      `listen = "0.0.0.0:${tlsPort}"`,
      `tls_cert = "${join(work, 'fullchain.pem')}"`,
      `tls_key = "${join(work, 'privkey.pem')}"`,
    ].join('\n'),
  );
  const plain = serve(dirs[0]!, '--listen', `127.0.0.1:${plainPort}`);
  const tls = serve(dirs[1]!, '--config', config);
  await eventually(() => [plain, tls].every((child) => child.output().includes('"msg":"listening"')), 30_000);
}, 60_000);

afterAll(async () => {
  for (const child of running) expect(await stop(child)).toBe(0);
  await rm(work, { recursive: true, force: true });
});

describe('modgate healthcheck', () => {
  it('exits 0 for a plain-HTTP serve on the address MODGATE_LISTEN names', async () => {
    const result = await run(['healthcheck'], { env: { MODGATE_LISTEN: `127.0.0.1:${plainPort}` } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `healthy: http://127.0.0.1:${plainPort}/healthz answered 200 (degraded, mod not connected)\n`,
    );
  });

  it('asks over HTTPS on loopback when the config file gives a wildcard address and a certificate', async () => {
    const result = await run(['healthcheck', '--json'], { env: { MODGATE_CONFIG: config } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      healthy: true,
      url: `https://127.0.0.1:${tlsPort}/healthz`,
      status: 200,
      health: { service: 'modgate', mod_connected: false, api_enabled: false },
    });
  });

  it('exits 1 with --require-mod while no mod is connected', async () => {
    const result = await run(['healthcheck', '--listen', `127.0.0.1:${plainPort}`, '--require-mod']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: http://127.0.0.1:${plainPort}/healthz?mod=required answered 503 (degraded, mod not connected)\n`,
    );
  });

  it('exits 1 with the error code unhealthy when nothing listens', async () => {
    const port = await freePort();
    const result = await run(['healthcheck', '--listen', `127.0.0.1:${port}`, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'unhealthy', message: `cannot reach http://127.0.0.1:${port}/healthz: ECONNREFUSED` },
    });
  });

  it('exits 1, not 2, on a config file that does not validate', async () => {
    const broken = join(work, 'broken.toml');
    await writeFile(broken, '[api]\nlisten = "nowhere"\n');
    const result = await run(['healthcheck', '--config', broken, '--json']);
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stderr) as { error: { code: string; message: string } };
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('api.listen');
  });
});
