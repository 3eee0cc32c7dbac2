/** Operational behaviour over real sockets: proxies, certificate reload, the audit log, shutdown. */
import { once } from 'node:events';
import { mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_FILE } from '../../daemon/log/audit-log.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { suiteStack } from '../support/suite.ts';

describe('trusted proxies', () => {
  const stack = suiteStack();
  let key: string;
  const get = (headers: Record<string, string>) =>
    fetch(`${stack.baseUrl}/v1/server`, { headers: { authorization: `Bearer ${key}`, ...headers } });

  beforeAll(async () => {
    key = (await stack.data.createKey('--name', 'office', '--allow-ip', '203.0.113.7')).key;
    await eventually(() => stack.daemon.snapshot.current().keysById.size === 2);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    expect((await get({ 'x-forwarded-for': '203.0.113.7' })).status).toBe(403);
  });

  it('takes the client address from X-Forwarded-For once the peer is trusted, and only the nearest untrusted hop', async () => {
    await stack.daemon.reload({ trustedProxies: ['127.0.0.1'] });
    expect((await get({ 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    // A client that prepends a forged hop does not get past the proxy's own entry.
    expect((await get({ 'x-forwarded-for': '203.0.113.7, 198.51.100.9' })).status).toBe(403);
    await stack.daemon.reload({ trustedProxies: [] });
  });
});

describe('certificate reload', () => {
  let stack: Stack;
  let dir: string;
  const certs: string[] = [];

  async function writeCert(): Promise<void> {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    certs.push(pems.cert);
    await writeFile(join(dir, 'key.pem'), pems.private);
    await writeFile(join(dir, 'cert.pem'), pems.cert);
  }

  function served(agent: Agent): Promise<{ status: number; cert: string }> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: stack.daemon.api.port,
          path: '/v1/server',
          agent,
          rejectUnauthorized: false,
          headers: { authorization: `Bearer ${stack.key}` },
        },
        (res) => {
          const peer = (res.socket as TLSSocket).getPeerCertificate();
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, cert: peer.raw.toString('base64') }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }
  const der = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-reload-'));
    await writeCert();
    stack = await startStack({
      daemon: { tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } },
    });
  });
  afterAll(async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a new certificate after SIGHUP without dropping an open connection', async () => {
    const kept = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await served(kept);
    expect(before.cert).toBe(der(certs[0] as string));
    await writeCert();
    await stack.daemon.reload();
    const fresh = await served(new Agent());
    expect(fresh.cert).toBe(der(certs[1] as string));
    const again = await served(kept);
    expect(again).toEqual({ status: 200, cert: der(certs[0] as string) });
    kept.destroy();
  });

  it('picks up renewed files on disk by itself', async () => {
    await writeCert();
    await eventually(async () => (await served(new Agent())).cert === der(certs[2] as string));
  });

  it('picks up a renewal that swaps links in the certificate folder, as certbot does', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    certs.push(pems.cert);
    const archive = await mkdtemp(join(tmpdir(), 'modgate-archive-'));
    await writeFile(join(archive, 'key2.pem'), pems.private);
    await writeFile(join(archive, 'cert2.pem'), pems.cert);
    for (const name of ['key', 'cert']) {
      await symlink(join(archive, `${name}2.pem`), join(dir, `${name}.pem.new`));
      await rename(join(dir, `${name}.pem.new`), join(dir, `${name}.pem`));
    }
    await eventually(async () => (await served(new Agent())).cert === der(certs[3] as string));
    await rm(archive, { recursive: true, force: true });
  });
});

describe('the audit log', () => {
  const stack = suiteStack();

  it('records every authenticated write with its key, route, target and outcome, and no read', async () => {
    const player = stack.sim!.world.players.list.itemAt(2).platform_id;
    const ok = await stack.call(`/v1/players/${player}/mute`, {
      method: 'POST',
      body: '{"duration":1}',
      headers: { 'content-type': 'application/json' },
    });
    const refused = await stack.call(`/v1/players/${player}/mute`, {
      method: 'POST',
      body: '{"duration":1,"duration_unit":"months"}',
      headers: { 'content-type': 'application/json' },
    });
    await stack.call('/v1/server');
    // The /v1 lines: those with a key (the admin writes that set the data dir up have none).
    const v1Lines = async () =>
      (await readFile(join(stack.data.dir, AUDIT_FILE), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { key_id: string | null })
        .filter((line) => line.key_id !== null);
    await eventually(async () => (await v1Lines()).length >= 2);
    const lines = await v1Lines();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      request_id: ok.headers['x-request-id'],
      method: 'POST',
      route: '/v1/players/{ref}/mute',
      target: `/v1/players/${player}/mute`,
      status: 200,
      outcome: 'ok',
      error_code: null,
    });
    expect(lines[1]).toMatchObject({
      request_id: refused.headers['x-request-id'],
      status: 400,
      error_code: 'validation_error',
    });
    expect(JSON.stringify(lines)).not.toContain(stack.key);
  });
});

describe('shutdown', () => {
  it('completes every accepted request, refuses new connections, and closes the mod link with its code', async () => {
    const stack = await startStack();
    const sim = stack.sim!;
    const closed = once(sim.bridge, 'disconnect');
    sim.faults.add({ op: 'server.status', kind: 'delay', ms: 300 });
    const inFlight = Array.from({ length: 20 }, () =>
      fetch(`${stack.baseUrl}/v1/server`, { headers: { authorization: `Bearer ${stack.key}` } }).then(
        (r) => r.status,
      ),
    );
    await eventually(() => (sim.opCounts.get('server.status') ?? 0) >= 20);
    const closing = stack.daemon.close();
    await expect(fetch(`${stack.baseUrl}/v1/server`)).rejects.toThrow();
    expect(await Promise.all(inFlight)).toEqual(Array(20).fill(200));
    await closing;
    const [code] = (await closed) as [number];
    expect(code).toBe(4000);
    await sim.close();
    await stack.data.remove();
  });
});
