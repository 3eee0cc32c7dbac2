/**
 * The admin API on TCP over a real `modgate serve --admin-listen`: admin tokens made by the CLI
 * and by the API, refused the moment they are revoked (on an open keep-alive connection too),
 * the defences against browsers (Host, Origin and Sec-Fetch-Site, JSON only, no CORS), the
 * back-off on bad tokens, and no token ever in the logs.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { generate } from 'selfsigned';
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest, type AdminRequest } from '../../harness/admin.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { launchServe, startServe, stop, type Served } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

interface Created {
  id: string;
  name: string;
  token: string;
  created_at: string;
}

describe('the admin API on TCP', () => {
  let data: TestDataDir;
  let served: Served;
  let url: string;
  let token: Created;
  const tcp = (init: Omit<AdminRequest, 'url'>) => adminRequest({ url, token: token.token, ...init });

  beforeAll(async () => {
    data = await makeDataDir();
    const created = await data.cli(
      'admin',
      'tokens',
      'create',
      '--data-dir',
      data.dir,
      '--name',
      'provider',
      '--json',
    );
    token = JSON.parse(created.stdout) as Created;
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    served = await startServe(data.dir, { extra: ['--admin-listen', `127.0.0.1:${port}`] });
  }, 60_000);

  afterAll(async () => {
    await stop(served.serve);
    await data.remove();
  });

  it('prints a new token once, as mgadm_<id>_<secret>', () => {
    expect(token.token).toMatch(/^mgadm_[a-z0-9]{12}_[A-Za-z0-9]{40}$/);
    expect(token).toMatchObject({ id: token.token.slice(6, 18), name: 'provider' });
  });

  it('answers a request carrying an admin token', async () => {
    const answer = await tcp({ path: '/admin/v1/status' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ api: { enabled: true } });
  });

  it('refuses a request without a token, or with a wrong one, 401 unauthorized', async () => {
    const none = await adminRequest({ url, path: '/admin/v1/status' });
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ error: { code: 'unauthorized' } });
    expect(none.headers['www-authenticate']).toContain('Bearer');
    const forged = `${token.token.slice(0, -1)}${token.token.endsWith('A') ? 'B' : 'A'}`;
    expect((await adminRequest({ url, token: forged, path: '/admin/v1/status' })).status).toBe(401);
  });

  it('stores only the hash of a token and lists it without its text', async () => {
    const file = await readFile(join(data.dir, 'admin-tokens.json'), 'utf8');
    expect(file).not.toContain(token.token);
    const listed = await tcp({ path: '/admin/v1/tokens' });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(token.token);
    expect(listed.json).toMatchObject({ data: [{ id: token.id, status: 'active' }], has_more: false });
    const cli = await data.cli('admin', 'tokens', 'list', '--data-dir', data.dir);
    expect(cli.stdout).toContain(token.id);
    expect(cli.stdout).not.toContain(token.token);
  });

  it('refuses a token revoked through the API at once, on an open keep-alive connection too', async () => {
    const made = await adminRequest({
      dataDir: data.dir,
      method: 'POST',
      path: '/admin/v1/tokens',
      body: { name: 'short-lived' },
    });
    expect(made.status).toBe(201);
    const { id, token: text } = made.json as Created;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await adminRequest({ url, token: text, agent, path: '/admin/v1/status' });
      expect(before.status).toBe(200);
      const revoked = await tcp({ method: 'DELETE', path: `/admin/v1/tokens/${id}` });
      expect(revoked.status).toBe(204);
      const after = await adminRequest({ url, token: text, agent, path: '/admin/v1/status' });
      expect(after.status).toBe(401);
    } finally {
      agent.destroy();
    }
  });

  it('replays a POST retried with the same Idempotency-Key instead of creating a second token', async () => {
    const post = (name: string) =>
      tcp({
        method: 'POST',
        path: '/admin/v1/tokens',
        body: { name },
        headers: { 'idempotency-key': 'order-1' },
      });
    const first = await post('retried');
    const again = await post('retried');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    // The replay is the same token, but its text was shown once and is not kept (shownOnce).
    expect(again.json).toEqual({ ...(first.json as object), token: null });
    expect(again.headers['idempotent-replayed']).toBe('true');
    const conflict = await post('another body');
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({ error: { code: 'idempotency_conflict' } });
    const listed = (await tcp({ path: '/admin/v1/tokens' })).json as { data: Array<{ name: string }> };
    expect(listed.data.filter((entry) => entry.name === 'retried')).toHaveLength(1);
  });

  it('answers 404 for revoking a token that does not exist', async () => {
    const answer = await tcp({ method: 'DELETE', path: '/admin/v1/tokens/zzzzzzzzzzzz' });
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ error: { code: 'not_found' } });
  });

  describe('defences against a browser', () => {
    it('answers 421 to a Host that is not this listener (DNS rebinding)', async () => {
      const answer = await tcp({
        path: '/admin/v1/status',
        headers: { host: `rebind.example:${new URL(url).port}` },
      });
      expect(answer.status).toBe(421);
      expect(answer.json).toMatchObject({ error: { code: 'misdirected_request' } });
    });

    it('answers 421 to an absolute-form target naming another host, whatever the Host header says', async () => {
      const port = new URL(url).port;
      for (const target of [
        'http://evil.example/admin/v1/status',
        `http://evil.example:${port}/admin/v1/status`,
      ]) {
        const answer = await tcp({ path: target, headers: { host: `127.0.0.1:${port}` } });
        expect(answer.status, target).toBe(421);
        expect(answer.json).toMatchObject({ error: { code: 'misdirected_request' } });
      }
      const own = await tcp({ path: `http://127.0.0.1:${port}/admin/v1/status` });
      expect(own.status).toBe(200);
    });

    it('accepts localhost as the Host of a loopback listener', async () => {
      const answer = await tcp({
        path: '/admin/v1/status',
        headers: { host: `localhost:${new URL(url).port}` },
      });
      expect(answer.status).toBe(200);
    });

    it('refuses a write whose Origin is another site, 403 cross_origin_request', async () => {
      const answer = await tcp({
        method: 'PUT',
        path: '/admin/v1/api',
        body: { enabled: true },
        headers: { origin: 'http://evil.example' },
      });
      expect(answer.status).toBe(403);
      expect(answer.json).toMatchObject({ error: { code: 'cross_origin_request' } });
    });

    it('refuses a write a browser marks Sec-Fetch-Site: cross-site', async () => {
      const answer = await tcp({
        method: 'PUT',
        path: '/admin/v1/api',
        body: { enabled: true },
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      expect(answer.status).toBe(403);
    });

    it('accepts a write from its own origin', async () => {
      const answer = await tcp({
        method: 'PUT',
        path: '/admin/v1/api',
        body: { enabled: true },
        headers: { origin: url, 'sec-fetch-site': 'same-origin' },
      });
      expect(answer.status).toBe(200);
    });

    it('refuses a text/plain body carrying JSON, 415', async () => {
      const answer = await tcp({
        method: 'PUT',
        path: '/admin/v1/api',
        body: '{"enabled":false}',
        headers: { 'content-type': 'text/plain' },
      });
      expect(answer.status).toBe(415);
      expect(answer.json).toMatchObject({ error: { code: 'unsupported_media_type' } });
      expect((await tcp({ path: '/admin/v1/api' })).json).toEqual({ enabled: true });
    });

    it('refuses a CORS preflight and never sends Access-Control headers', async () => {
      const preflight = await tcp({
        method: 'OPTIONS',
        path: '/admin/v1/api',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'PUT' },
      });
      expect(preflight.status).toBe(403);
      const answers = [
        preflight,
        await tcp({ path: '/admin/v1/status', headers: { origin: 'http://evil.example' } }),
      ];
      for (const answer of answers) {
        expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
    });
  });

  it('backs off an address after 10 bad tries at one token, 429 with Retry-After, and still lets the token in', async () => {
    const from = { url, localAddress: '127.0.0.2', path: '/admin/v1/status' };
    const [, id] = /^mgadm_([a-z0-9]{12})_/.exec(token.token) ?? [];
    const wrongSecret = (i: number) => `mgadm_${id}_${String(i).padStart(40, 'x')}`;
    for (let i = 0; i < 10; i++) {
      expect((await adminRequest({ ...from, token: wrongSecret(i) })).status).toBe(401);
    }
    const blocked = await adminRequest({ ...from, token: wrongSecret(10) });
    expect(blocked.status).toBe(429);
    expect(blocked.json).toMatchObject({ error: { code: 'rate_limited' } });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // The holder of the real token, on the guesser's address, is not held back.
    expect((await adminRequest({ ...from, token: token.token })).status).toBe(200);
  });

  it('does not let bad guesses from a shared address lock out the holder of another token', async () => {
    // On loopback every local user is 127.0.0.1: their guesses must not shut the operator out.
    const from = { url, localAddress: '127.0.0.3', path: '/admin/v1/status' };
    const tries = async (guess: (i: number) => string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await adminRequest({ ...from, token: guess(i) })).status);
      return statuses;
    };
    const unknownId = await tries((i) => `mgadm_${'q'.repeat(12)}_${String(i).padStart(40, 'x')}`);
    const malformed = await tries((i) => `mgadm_guess${i}`);
    expect([unknownId.at(-1), malformed.at(-1)]).toEqual([429, 429]);
    expect((await adminRequest({ ...from, token: token.token })).status).toBe(200);
  });

  it('records every admin write in the audit log with its actor', async () => {
    const audit = await readFile(join(data.dir, 'audit.jsonl'), 'utf8');
    const lines = audit
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        route: '/admin/v1/api',
        method: 'PUT',
        status: 200,
        actor: { kind: 'token', token_id: token.id, name: 'provider' },
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        route: '/admin/v1/tokens',
        method: 'POST',
        status: 201,
        actor: { kind: 'local', uid: process.getuid?.() },
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ route: '/admin/v1/api', status: 403, error_code: 'cross_origin_request' }),
    );
  });

  it('never writes a token or an Authorization header to its logs', () => {
    const output = served.serve.output();
    expect(output).toContain('"msg":"admin request"');
    expect(output).not.toContain(token.token);
    expect(output).not.toContain('mgadm_');
    expect(output.toLowerCase()).not.toContain('bearer');
  });
});

describe('the admin API over TLS', () => {
  let dir: string;
  let data: TestDataDir;
  let served: Served;
  let cert: string;
  let port: number;

  beforeAll(async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    cert = pems.cert;
    dir = await mkdtemp(join(tmpdir(), 'modgate-admin-tls-'));
    await writeFile(join(dir, 'cert.pem'), pems.cert);
    await writeFile(join(dir, 'key.pem'), pems.private);
    port = await freePort();
    const config = join(dir, 'modgate.toml');
    await writeFile(
      config,
      `[admin]\nlisten = "0.0.0.0:${port}"\ntls_cert = "${join(dir, 'cert.pem')}"\ntls_key = "${join(dir, 'key.pem')}"\nhostnames = ["localhost"]\n`,
    );
    data = await makeDataDir();
    served = await startServe(data.dir, { extra: ['--config', config] });
  }, 60_000);

  afterAll(async () => {
    await stop(served.serve);
    await data.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a non-loopback address with its own certificate, to a configured host name', async () => {
    const made = await adminRequest({
      dataDir: data.dir,
      method: 'POST',
      path: '/admin/v1/tokens',
      body: { name: 'tls' },
    });
    const { token } = made.json as Created;
    const answer = await adminRequest({
      url: `https://127.0.0.1:${port}`,
      servername: 'localhost',
      ca: cert,
      token,
      path: '/admin/v1/status',
      headers: { host: `localhost:${port}` },
    });
    expect(answer.status).toBe(200);
    // Its address is a wildcard: only the configured name is a Host it answers to.
    const wildcard = await adminRequest({
      url: `https://127.0.0.1:${port}`,
      servername: 'localhost',
      ca: cert,
      token,
      path: '/admin/v1/status',
    });
    expect(wildcard.status).toBe(421);
  });

  it('serves a renewed certificate once its files change, like the API listener', async () => {
    const renewed = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    await writeFile(join(dir, 'key.pem'), renewed.private);
    await writeFile(join(dir, 'cert.pem'), renewed.cert);
    const ask = (ca: string) =>
      adminRequest({
        url: `https://127.0.0.1:${port}`,
        servername: 'localhost',
        ca,
        path: '/admin/v1/status',
        headers: { host: `localhost:${port}` },
        agent: new HttpsAgent({ keepAlive: false }), // a new handshake each time
      }).then(
        (answer) => answer.status,
        () => 0,
      );
    // Any answer at all means the TLS handshake trusted that certificate (no token here: 401).
    await eventually(async () => (await ask(renewed.cert)) === 401);
    expect(await ask(cert)).toBe(0); // the old certificate is no longer the one served
  });

  it('speaks no plain HTTP on that address', async () => {
    await expect(
      adminRequest({ url: `http://127.0.0.1:${port}`, path: '/admin/v1/status' }),
    ).rejects.toThrow();
  });
});

describe('the admin TCP listener’s address rule', () => {
  it('refuses plain HTTP on an address that is not loopback: exit 2, naming the fix', async () => {
    const data = await makeDataDir();
    try {
      const { serve } = await launchServe(data.dir, {
        extra: ['--admin-listen', `0.0.0.0:${await freePort()}`],
      });
      expect(await serve.exited()).toBe(2);
      expect(serve.output()).toContain('refusing to serve the admin API in plain HTTP');
      expect(serve.output()).toContain('[admin] tls_cert');
    } finally {
      await data.remove();
    }
  }, 60_000);
});
