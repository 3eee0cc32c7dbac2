/**
 * `modgate serve` failing to start, as an operator meets it: real processes, real sockets. A
 * configuration or usage error exits 2 (systemd does not retry it) and names the flag or config
 * key; an address in use exits 1 and names the flag and the process holding it; a file owned by
 * another user names that user and the `sudo -u` line. Under --json the error is one JSON object.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { start } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

interface Ended {
  code: number | null;
  stderr: string;
}

async function serveFails(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ended> {
  const child = start(['serve', ...args], { env });
  const code = await child.exited();
  return { code, stderr: child.stderrText() };
}

function jsonError(stderr: string): { code: string; message: string } {
  return (JSON.parse(stderr.trim()) as { error: { code: string; message: string } }).error;
}

describe('modgate serve refusing to start', () => {
  let data: TestDataDir;
  let holder: ChildProcess | null = null;
  let busyPort: number;
  let holderPid: number;

  beforeAll(async () => {
    data = await makeDataDir();
    busyPort = await freePort();
    const child = spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(${busyPort}, '127.0.0.1', () => console.log('up'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout?.on('data', (chunk) => (out += chunk));
    await eventually(() => out.includes('up'));
    holderPid = child.pid as number;
    holder = child;
  }, 60_000);

  afterAll(async () => {
    holder?.kill('SIGTERM');
    await data?.remove();
  });

  const flags = async (extra: string[] = []) => [
    '--data-dir',
    data.dir,
    '--listen',
    `127.0.0.1:${await freePort()}`,
    '--mod-listen',
    `127.0.0.1:${await freePort()}`,
    ...extra,
  ];

  it('exits 2 on plain HTTP on a public address, naming the flags that fix it', async () => {
    const result = await serveFails(['--data-dir', data.dir, '--listen', '0.0.0.0:8787']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: refusing to serve plain HTTP on 0\.0\.0\.0:8787 \(--listen/);
    expect(result.stderr).toContain('--tls-cert FILE --tls-key FILE');
  });

  it('exits 2 with a JSON error under --json', async () => {
    const result = await serveFails(['--data-dir', data.dir, '--listen', '0.0.0.0:8787', '--json']);
    expect(result.code).toBe(2);
    expect(jsonError(result.stderr)).toMatchObject({ code: 'plain_http_refused' });
  });

  it('exits 2 on metrics open to everyone, naming --metrics-allow', async () => {
    const result = await serveFails(await flags(['--metrics-listen', '0.0.0.0:9464', '--json']));
    expect(result.code).toBe(2);
    const error = jsonError(result.stderr);
    expect(error.code).toBe('metrics_exposed');
    expect(error.message).toContain('--metrics-allow CIDR');
  });

  it('exits 2 on a bad config file, naming the key', async () => {
    const config = join(data.dir, 'bad.toml');
    await writeFile(config, '[api]\nmax_connections = 0\n');
    const result = await serveFails(['--data-dir', data.dir, '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('api.max_connections');
  });

  it('exits 2 on a certificate that does not exist, naming the setting', async () => {
    const config = join(data.dir, 'tls.toml');
    const cert = join(data.dir, 'tls', 'fullchain.pem');
    await writeFile(config, `[api]\ntls_cert = "${cert}"\ntls_key = "${cert}.key"\n`);
    const result = await serveFails(['--data-dir', data.dir, '--config', config, '--json']);
    expect(result.code).toBe(2);
    expect(jsonError(result.stderr)).toEqual({
      code: 'config_invalid',
      message: `the TLS certificate ${cert} does not exist (--tls-cert, [api] tls_cert); in a container, mount the folder that holds it (modgate docs docker)`,
    });
  });

  it('exits 2 on a bad MODGATE_LISTEN, naming the variable', async () => {
    const result = await serveFails(['--data-dir', data.dir, '--json'], { MODGATE_LISTEN: 'nowhere' });
    expect(result.code).toBe(2);
    expect(jsonError(result.stderr)).toMatchObject({ code: 'config_invalid' });
    expect(jsonError(result.stderr).message).toContain('MODGATE_LISTEN');
  });

  it.each([
    ['--listen', (port: number) => ['--listen', `127.0.0.1:${port}`]],
    ['--mod-listen', (port: number) => ['--mod-listen', `127.0.0.1:${port}`]],
    ['--metrics-listen', (port: number) => ['--metrics-listen', `127.0.0.1:${port}`]],
  ])('exits 1 when the %s address is in use, naming the flag and the process', async (flag, taken) => {
    const base = await flags();
    const without = base.filter((_, i) => !(base[i] === flag || base[i - 1] === flag));
    const result = await serveFails([...without, ...taken(busyPort)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`127.0.0.1:${busyPort} is already in use: process ${holderPid} (`);
    expect(result.stderr).toContain(`choose another address with ${flag} (`);
  });

  it.runIf(process.getuid?.() === 0)(
    'names the owner of files another user cannot read, with the sudo -u line',
    async () => {
      await chmod(data.dir, 0o700);
      // The checkout may sit where nobody cannot enter: the child runs the suite's bundle, which
      // is in /tmp (test/support/cli-bundle.ts).
      const [node, ...program] = inject('modgateProgram');
      const child = spawn(node as string, [...program, 'keys', 'list', '--data-dir', data.dir], {
        uid: 65534,
        gid: 65534,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HOME: '/tmp' },
      });
      let stderr = '';
      child.stderr?.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(stderr).toContain(`permission denied`);
      expect(stderr).toContain('it belongs to user root');
      expect(stderr).toContain(`sudo -u root modgate keys list --data-dir ${data.dir}`);
      expect(code).toBe(2);
    },
    60_000,
  );
});
