/**
 * docs/reverse-proxy.md, as written: the real nginx (Debian's package) runs the documented server
 * block, changed only in its ports and certificate paths, in front of real `modgate serve` and
 * `modgate sim` processes configured with the documented TOML. Clients connect from other
 * loopback addresses (127.0.0.2, 127.0.0.3, …), so the daemon sees nginx at 127.0.0.1 and must
 * find the client through `trusted_proxies`.
 *
 * .ci/run installs nginx and sets MODGATE_REQUIRE_NGINX=1: then a missing nginx fails this file
 * instead of leaving it out.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { eventually } from '../support/stack.ts';

const BIN = new URL('../../bin/modgate.js', import.meta.url).pathname;
const run = promisify(execFile);
const required = process.env['MODGATE_REQUIRE_NGINX'] === '1';
const NGINX = ['/usr/sbin/nginx', 'nginx'].find((candidate) => works(candidate, ['-v']));

function works(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The body of the first ```LANG fence in the doc. */
function fence(doc: string, lang: string): string {
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(doc)?.[1];
  if (block === undefined) throw new Error(`docs/reverse-proxy.md has no ${lang} block`);
  return block;
}

/** Replaces `from` with `to`, insisting it is there: the doc and the test must not drift apart. */
function swap(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`docs/reverse-proxy.md no longer contains ${from}`);
  return text.replaceAll(from, to);
}

function start(command: string, args: string[]): ChildProcess & { output: () => string } {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return Object.assign(child, { output: () => output });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** GET /healthz straight from the daemon (no nginx), from a chosen loopback address. */
function healthz(port: number, from: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/healthz', localAddress: from, agent: false },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve(body));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface ProxiedAnswer {
  status: number;
  /** The certificate the TLS peer presented, and the TLS version. */
  fingerprint: string;
  protocol: string | null;
}

describe.runIf(NGINX !== undefined || required)('modgate behind nginx (docs/reverse-proxy.md)', () => {
  let dir: string;
  let nginxPort: number;
  let apiPort: number;
  let certPem: string;
  let serve: ReturnType<typeof start> | undefined;
  let sim: ReturnType<typeof start> | undefined;
  let nginx: ReturnType<typeof start> | undefined;
  const keys: Record<string, string> = {};

  /** GET through nginx over TLS, from a chosen loopback address. */
  function get(
    from: string,
    key: string | null,
    headers: Record<string, string> = {},
  ): Promise<ProxiedAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: nginxPort,
          path: '/v1/server',
          localAddress: from,
          servername: 'localhost',
          ca: certPem,
          agent: false,
          headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers },
        },
        (response) => {
          const socket = response.socket as TLSSocket;
          const answer = {
            status: response.statusCode ?? 0,
            fingerprint: socket.getPeerCertificate().fingerprint256,
            protocol: socket.getProtocol(),
          };
          response.resume();
          response.on('end', () => resolve(answer));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    if (NGINX === undefined) throw new Error('MODGATE_REQUIRE_NGINX=1 but nginx is not installed');
    dir = await mkdtemp(join(tmpdir(), 'modgate-nginx-'));
    const doc = await readFile(new URL('../../docs/reverse-proxy.md', import.meta.url), 'utf8');
    [nginxPort, apiPort] = await Promise.all([freePort(), freePort()]);
    const modPort = await freePort();

    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    certPem = pems.cert;
    await writeFile(join(dir, 'cert.pem'), pems.cert);
    await writeFile(join(dir, 'key.pem'), pems.private, { mode: 0o600 });

    // modgate: the documented TOML, plus a small per-address limit to count against.
    const toml = swap(fence(doc, 'toml'), '127.0.0.1:8787', `127.0.0.1:${apiPort}`);
    await writeFile(
      join(dir, 'modgate.toml'),
      `${toml}\n[rate_limit]\nper_address = { limit = 5, window_sec = 600 }\n`,
    );
    const data = join(dir, 'data');
    const modgate = (...args: string[]) => run(process.execPath, [BIN, ...args, '--data-dir', data]);
    await modgate('init');
    await modgate('plan', 'set', '--premium', 'on');
    await modgate('api', 'enable');
    for (const [name, allow] of [
      ['from2', ['--allow-ip', '127.0.0.2']],
      ['from3', ['--allow-ip', '127.0.0.3']],
      ['anywhere', []],
    ] as const) {
      const created = await modgate(
        'keys',
        'create',
        '--name',
        name,
        '--scopes',
        'server:read',
        ...allow,
        '--json',
      );
      keys[name] = (JSON.parse(created.stdout) as { key: string }).key;
    }
    serve = start(process.execPath, [
      BIN,
      'serve',
      '--data-dir',
      data,
      '--config',
      join(dir, 'modgate.toml'),
      '--mod-listen',
      `127.0.0.1:${modPort}`,
    ]);
    sim = start(process.execPath, [
      BIN,
      'sim',
      '--data-dir',
      data,
      '--connect',
      `ws://127.0.0.1:${modPort}`,
      '--players',
      '5',
    ]);
    // Each poll from its own address: /healthz counts against the per-address limit of 5.
    let poll = 0;
    await eventually(async () => {
      poll += 1;
      const health = await healthz(apiPort, `127.1.${Math.floor(poll / 250)}.${(poll % 250) + 1}`).catch(
        () => null,
      );
      return health?.includes('"mod_connected":true') ?? false;
    }, 60_000);

    // nginx: the documented server block in a minimal nginx.conf of its own, in the foreground.
    let server = fence(doc, 'nginx');
    server = swap(server, 'listen 443 ssl;', `listen 127.0.0.1:${nginxPort} ssl;`);
    server = swap(server, '/etc/ssl/modgate/fullchain.pem', join(dir, 'cert.pem'));
    server = swap(server, '/etc/ssl/modgate/privkey.pem', join(dir, 'key.pem'));
    server = swap(server, 'http://127.0.0.1:8787', `http://127.0.0.1:${apiPort}`);
    await writeFile(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${join(dir, 'nginx.pid')};`,
        `error_log ${join(dir, 'nginx-error.log')} warn;`,
        'events { worker_connections 64; }',
        'http {',
        `  access_log ${join(dir, 'nginx-access.log')};`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (temp) => `  ${temp}_temp_path ${join(dir, temp)};`,
        ),
        server,
        '}',
      ].join('\n'),
    );
    nginx = start(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')]);
    let attempt = 0;
    await eventually(async () => {
      attempt += 1;
      if (nginx?.exitCode !== null) throw new Error(`nginx exited: ${nginx?.output()}`);
      return (
        (await get(`127.2.${Math.floor(attempt / 250)}.${(attempt % 250) + 1}`, null).catch(() => null)) !==
        null
      );
    }, 10_000);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([stop(nginx), stop(sim)]);
    await stop(serve);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('terminates TLS at nginx with its certificate, while the daemon listens in plain HTTP', async () => {
    const answer = await get('127.0.0.2', keys['anywhere']!);
    expect(answer.status).toBe(200);
    expect(answer.fingerprint).toBe(new X509Certificate(certPem).fingerprint256);
    expect(['TLSv1.2', 'TLSv1.3']).toContain(answer.protocol);
    expect(await healthz(apiPort, '127.0.0.7')).toContain('"service":"modgate"');
  });

  it("applies a key's IP allowlist to the client's address, not nginx's", async () => {
    expect((await get('127.0.0.2', keys['from2']!)).status).toBe(200);
    expect((await get('127.0.0.2', keys['from3']!)).status).toBe(403);
    expect((await get('127.0.0.3', keys['from3']!)).status).toBe(200);
    expect((await get('127.0.0.3', keys['from2']!)).status).toBe(403);
  });

  it('gives a client no other address through its own X-Forwarded-For', async () => {
    const spoofed = await get('127.0.0.2', keys['from3']!, { 'x-forwarded-for': '127.0.0.3' });
    expect(spoofed.status).toBe(403);
  });

  it('counts the per-address rate limit for each client apart', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await get('127.0.0.4', keys['anywhere']!)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Another client behind the same nginx is not held back by the first one's count.
    expect((await get('127.0.0.6', keys['anywhere']!)).status).toBe(200);
  });
});
