import { once } from 'node:events';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { dirname, join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { healthz } from '../../daemon/http/healthz.ts';
import { doctor, freePort, readyDataDir } from './doctor-support.ts';
import { run } from '../../harness/cli.ts';

const DAY_MS = 86_400_000;
let dir: string;
let ports: { api: number; mod: number };

beforeAll(async () => {
  ports = { api: await freePort(), mod: await freePort() };
  dir = await readyDataDir(ports.mod);
});

afterAll(async () => {
  await rm(dirname(dir), { recursive: true, force: true });
});

async function certificate(name: string, from: Date, to: Date): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: from,
    notAfterDate: to,
  });
  const cert = join(dirname(dir), `${name}.crt`);
  const key = join(dirname(dir), `${name}.key`);
  await writeFile(cert, pems.cert);
  await writeFile(key, pems.private, { mode: 0o600 });
  return { cert, key };
}

const tls = (files: { cert: string; key: string }) => ['--tls-cert', files.cert, '--tls-key', files.key];

describe('modgate doctor: certificates', () => {
  it('reports the days left on a valid certificate whose key matches', async () => {
    const files = await certificate(
      'valid',
      new Date(Date.now() - DAY_MS),
      new Date(Date.now() + 90.5 * DAY_MS),
    );
    const result = await doctor(dir, ports, tls(files));
    expect(result.line('tls key')).toMatch(/^ok +tls key +.* matches the certificate$/);
    expect(result.line('tls validity')).toMatch(/^ok +tls validity +valid until .* \(90 days left\)$/);
    expect(result.code).toBe(0);
  });

  it('fails on an expired certificate', async () => {
    const files = await certificate(
      'expired',
      new Date(Date.now() - 100 * DAY_MS),
      new Date(Date.now() - DAY_MS),
    );
    const result = await doctor(dir, ports, tls(files));
    expect(result.code).toBe(1);
    expect(result.line('tls validity')).toMatch(/^fail +tls validity +expired \d{4}-/);
    expect(result.fix('tls validity')).toMatch(/^renew /);
  });

  it('warns on a certificate with fewer than 21 days left', async () => {
    const files = await certificate(
      'soon',
      new Date(Date.now() - DAY_MS),
      new Date(Date.now() + 10.5 * DAY_MS),
    );
    const result = await doctor(dir, ports, tls(files));
    expect(result.line('tls validity')).toMatch(/^warn +tls validity +.*\(10 days left\)$/);
    expect(result.code).toBe(0);
  });

  it('fails when the key is not the certificate’s', async () => {
    const one = await certificate('one', new Date(Date.now() - DAY_MS), new Date(Date.now() + 90 * DAY_MS));
    const two = await certificate('two', new Date(Date.now() - DAY_MS), new Date(Date.now() + 90 * DAY_MS));
    const result = await doctor(dir, ports, ['--tls-cert', one.cert, '--tls-key', two.key]);
    expect(result.code).toBe(1);
    expect(result.line('tls key')).toMatch(/^fail +tls key +.*two\.key is not the key of .*one\.crt$/);
  });

  it('fails on a certificate file that is missing or not PEM', async () => {
    const files = await certificate(
      'garbled',
      new Date(Date.now() - DAY_MS),
      new Date(Date.now() + 90 * DAY_MS),
    );
    await writeFile(files.cert, 'not a certificate\n');
    const garbled = await doctor(dir, ports, tls(files));
    expect(garbled.code).toBe(1);
    expect(garbled.line('tls certificate')).toMatch(/is not a PEM certificate$/);
    const missing = await doctor(dir, ports, ['--tls-cert', '/nowhere/cert.pem', '--tls-key', files.key]);
    expect(missing.line('tls certificate')).toMatch(
      /^fail +tls certificate +\/nowhere\/cert\.pem does not exist$/,
    );
  });

  it('warns on a key file every user can read', async () => {
    const files = await certificate(
      'open',
      new Date(Date.now() - DAY_MS),
      new Date(Date.now() + 90 * DAY_MS),
    );
    await chmod(files.key, 0o644);
    const result = await doctor(dir, ports, tls(files));
    expect(result.stdout).toMatch(/^warn +tls key +.*open\.key is readable by every user \(mode 0644\)$/m);
  });

  it('fails on plain HTTP on an address that is not loopback', async () => {
    const result = await doctor(dir, ports, ['--listen', `0.0.0.0:${ports.api}`]);
    expect(result.code).toBe(1);
    expect(result.line('tls')).toMatch(/^fail +tls +no certificate, and 0\.0\.0\.0:\d+ is not loopback/);
  });

  it('exits 2 when --tls-cert comes without --tls-key', async () => {
    const result = await doctor(dir, ports, ['--tls-cert', '/x.pem']);
    expect(result).toMatchObject({ code: 2, stderr: 'error: --tls-cert and --tls-key go together\n' });
  });
});

describe('modgate doctor: addresses and the mod link', () => {
  const servers: { close(callback: () => void): unknown }[] = [];

  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  });

  async function listening<T extends Server | ReturnType<typeof createTcpServer>>(server: T, port: number) {
    servers.push(server);
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return server;
  }

  /** A stand-in daemon: /healthz as the pipeline answers it, and a WebSocket mod-link listener. */
  async function fakeDaemon(modConnected: boolean, workerFaults: string[] = []): Promise<void> {
    const state = {
      modConnected,
      modVersion: modConnected ? '2.1.0' : null,
      startedAt: new Date(),
      apiEnabled: true,
      workerFaults,
    };
    await listening(
      createHttpServer((req, res) => {
        const answer = healthz(state);
        res.writeHead(req.url === '/healthz' ? answer.status : 404, {
          ...answer.headers,
          'api-version': '1.0',
        });
        res.end(JSON.stringify(answer.body));
      }),
      ports.api,
    );
    const wss = new WebSocketServer({ port: ports.mod, host: '127.0.0.1' });
    servers.push(wss);
    await once(wss, 'listening');
  }

  it('recognises a running modgate and reports its connected mod', async () => {
    await fakeDaemon(true);
    const result = await doctor(dir, ports);
    expect(result.line('api listen')).toMatch(
      /^ok +api listen +127\.0\.0\.1:\d+: a modgate is serving \(up \d+ s, API enabled\)$/,
    );
    expect(result.line('mod listen')).toMatch(/the running modgate's mod link$/);
    expect(result.line('mod')).toMatch(/^ok +mod +connected \(mod version 2\.1\.0\)$/);
    expect(result.line('workers')).toMatch(/^ok +workers +no background loop failed in the last 5 minutes$/);
    expect(result.code).toBe(0);
  });

  it('fails when the running modgate has no mod connected', async () => {
    await fakeDaemon(false);
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('mod')).toMatch(
      /^fail +mod +no mod connected: every \/v1 call that needs the game answers 503/,
    );
    expect(result.fix('mod')).toContain(`ws://127.0.0.1:${ports.mod}`);
  });

  it('fails its workers check while the running modgate restarts a failed background loop', async () => {
    await fakeDaemon(true, ['webhook wh_1: restarted 2 times, last 2026-01-01T00:00:00.000Z: EIO']);
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('workers')).toMatch(
      /^fail +workers +the running daemon restarted webhook wh_1: restarted 2 times/,
    );
    expect(result.fix('workers')).toContain('retries with a backoff by itself');
  });

  it('fails when another program holds the API address', async () => {
    await listening(
      createHttpServer((_req, res) => res.end('hello')),
      ports.api,
    );
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('api listen')).toMatch(
      /^fail +api listen +127\.0\.0\.1:\d+ is in use by another program$/,
    );
    expect(result.fix('api listen')).toBe(
      `find it with: ss -ltnp 'sport = :${ports.api}'; stop it, or give serve another address`,
    );
  });

  it('fails when another program holds the mod-link address', async () => {
    await listening(
      // Something that is not HTTP at all: a banner, then goodbye.
      createTcpServer((socket) => socket.resume().end('SSH-2.0-OpenSSH_9.2\r\n')),
      ports.mod,
    );
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('mod listen')).toMatch(/is in use by another program$/);
  });

  it('recognises an older modgate without /healthz by its API-Version header', async () => {
    await listening(
      createHttpServer((_req, res) => {
        res.writeHead(404, { 'api-version': '1.0' });
        res.end('{}');
      }),
      ports.api,
    );
    const result = await doctor(dir, ports);
    expect(result.line('api listen')).toMatch(/^warn +api listen +.*a modgate without \/healthz is serving$/);
  });

  it('takes the API address from MODGATE_LISTEN, as serve does', async () => {
    await listening(
      createHttpServer((_req, res) => res.end('hello')),
      ports.api,
    );
    const result = await run(['doctor', '--data-dir', dir, '--mod-listen', `127.0.0.1:${ports.mod}`], {
      env: { MODGATE_LISTEN: `127.0.0.1:${ports.api}` },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`127.0.0.1:${ports.api} is in use by another program`);
  });

  it('fails when the API and the mod link share an address', async () => {
    const result = await doctor(dir, { api: ports.api, mod: ports.api });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^fail +listen +the API and the mod link both use/m);
  });
});
