/**
 * The panel's sessions over a real `modgate serve --admin-listen` (docs/admin.md, "The panel"):
 * sign-in with a token or a one-time code gives a cookie that authenticates admin requests
 * under the listener's defences; sign-out, token revocation and a spent code end it; codes
 * are minted only on admin.sock; the panel is served only on the admin TCP listener; the
 * bad-token back-off counts wrong tokens and codes but not a browser that has not signed in;
 * and no cookie, code or token reaches the logs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest, type AdminAnswer } from '../../harness/admin.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { startServe, stop, type Served } from '../../harness/processes.ts';
import { createAdminToken, revokeAdminToken } from '../../daemon/store/admin-tokens.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';

describe('panel sessions on the admin TCP listener', () => {
  let data: TestDataDir;
  let served: Served;
  let url: string;
  let port: number;
  let token: string;
  const secrets: string[] = [];

  beforeAll(async () => {
    data = await makeDataDir();
    port = await freePort();
    token = (await createAdminToken(await DataDir.open(data.dir), 'ops', new Date())).token;
    secrets.push(token);
    served = await startServe(data.dir, { extra: ['--admin-listen', `127.0.0.1:${port}`] });
    url = `http://127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    if (served) await stop(served.serve);
    await data?.remove();
  });

  const tcp = (
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => adminRequest({ url, path, ...init });

  async function signIn(body: Record<string, string>): Promise<{ answer: AdminAnswer; cookie: string }> {
    const answer = await tcp('/admin/v1/session', { method: 'POST', body });
    const setCookie = answer.headers['set-cookie']?.[0] ?? '';
    const cookie = setCookie.split(';')[0] ?? '';
    if (cookie.includes('=')) secrets.push(cookie.split('=')[1]!);
    return { answer, cookie };
  }

  it('does not count a browser without a token towards the back-off, and clears a stale cookie', async () => {
    const stale = { cookie: `modgate_session=${'A'.repeat(43)}` };
    for (let i = 0; i < 8; i++) {
      expect((await tcp('/admin/v1/session')).status).toBe(401);
      const answer = await tcp('/admin/v1/session', { headers: stale });
      expect(answer.status).toBe(401);
      expect(answer.headers['set-cookie']?.[0]).toMatch(/^modgate_session=; .*Max-Age=0/);
    }
    expect((await signIn({ token })).answer.status).toBe(201);
  });

  it('signs in with a token: an HttpOnly, SameSite=Strict cookie that authenticates admin requests', async () => {
    const { answer, cookie } = await signIn({ token });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ name: 'ops', token_id: expect.any(String) });
    expect(answer.headers['set-cookie']?.[0]).toMatch(
      /^modgate_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/,
    );
    const status = await tcp('/admin/v1/status', { headers: { cookie } });
    expect(status.status).toBe(200);
    expect((await tcp('/admin/v1/session', { headers: { cookie } })).json).toMatchObject({ name: 'ops' });
  });

  it('puts a strict CSP, nosniff and no-referrer on the panel and on every admin answer', async () => {
    for (const path of ['/', '/login', '/panel.js', '/panel.css', '/admin/v1/status']) {
      const answer = await tcp(path);
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
    expect((await tcp('/')).text).toContain('<script type="module" src="/panel.js">');
  });

  it('serves the panel on the admin TCP listener only: not on admin.sock, not on the API listener', async () => {
    expect((await adminRequest({ dataDir: data.dir, path: '/' })).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${served.apiPort}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${served.apiPort}/panel.js`)).status).toBe(404);
  });

  it('refuses a cross-origin write made with the session cookie, and a cross-origin sign-in', async () => {
    const { cookie } = await signIn({ token });
    const evil = { cookie, origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' };
    const write = await tcp('/admin/v1/api', { method: 'PUT', body: { enabled: false }, headers: evil });
    expect(write.status).toBe(403);
    expect(write.json).toMatchObject({ error: { code: 'cross_origin_request' } });
    expect((await tcp('/admin/v1/api', { headers: { cookie } })).json).toMatchObject({ enabled: true });
    const login = await tcp('/admin/v1/session', {
      method: 'POST',
      body: { token },
      headers: { origin: 'http://evil.test' },
    });
    expect(login.status).toBe(403);
    expect(login.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a sign-in that is not JSON (a cross-site text/plain form post)', async () => {
    const answer = await tcp('/admin/v1/session', {
      method: 'POST',
      body: JSON.stringify({ token }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(answer.status).toBe(415);
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it('signs out: the cookie is cleared and no longer works', async () => {
    const { cookie } = await signIn({ token });
    const out = await tcp('/admin/v1/session', { method: 'DELETE', headers: { cookie } });
    expect(out.status).toBe(204);
    expect(out.headers['set-cookie']?.[0]).toContain('Max-Age=0');
    expect((await tcp('/admin/v1/status', { headers: { cookie } })).status).toBe(401);
  });

  it('mints one-time codes on admin.sock only; a code signs in once', async () => {
    expect(
      (
        await tcp('/admin/v1/login-codes', {
          method: 'POST',
          body: {},
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(404);
    const minted = await adminRequest({
      dataDir: data.dir,
      path: '/admin/v1/login-codes',
      method: 'POST',
      body: {},
    });
    expect(minted.status).toBe(201);
    const { code, url: link } = minted.json as { code: string; url: string };
    secrets.push(code);
    expect(link).toBe(`${url}/login#${code}`);
    const first = await signIn({ code });
    expect(first.answer.status).toBe(201);
    expect(first.answer.json).toMatchObject({
      token_id: null,
      name: expect.stringMatching(/^login link \(uid \d+\)$/),
    });
    expect((await tcp('/admin/v1/status', { headers: { cookie: first.cookie } })).status).toBe(200);
    expect((await signIn({ code })).answer.status).toBe(401);
    const socketSignIn = await adminRequest({
      dataDir: data.dir,
      path: '/admin/v1/session',
      method: 'POST',
      body: { token },
    });
    expect(socketSignIn.status).toBe(404);
  });

  it('ends the sessions of a revoked admin token', async () => {
    // Over admin.sock, as `modgate admin tokens create|revoke` does while serve runs.
    const created = await adminRequest({
      dataDir: data.dir,
      method: 'POST',
      path: '/admin/v1/tokens',
      body: { name: 'leaving' },
    });
    const other = created.json as { id: string; token: string };
    secrets.push(other.token);
    const { cookie } = await signIn({ token: other.token });
    expect((await tcp('/admin/v1/status', { headers: { cookie } })).status).toBe(200);
    const revoked = await adminRequest({
      dataDir: data.dir,
      method: 'DELETE',
      path: `/admin/v1/tokens/${other.id}`,
    });
    expect(revoked.status).toBe(204);
    expect((await tcp('/admin/v1/status', { headers: { cookie } })).status).toBe(401);
  });

  it('logs and audits no token, code or cookie', async () => {
    const logs = served.serve.output() + (await readFile(join(data.dir, 'audit.jsonl'), 'utf8'));
    expect(secrets.length).toBeGreaterThan(5);
    for (const secret of secrets) expect(logs).not.toContain(secret);
    expect(logs).toContain('"route":"/admin/v1/session"');
  });

  it('backs off repeated wrong codes from one address, and still signs in its token holder and a real code', async () => {
    // Codes count in one bucket per address, apart from tokens (token-backoff.ts).
    const answers: number[] = [];
    for (let i = 0; i < 11 && answers.at(-1) !== 429; i++)
      answers.push((await signIn({ code: `wrong-${i}` })).answer.status);
    expect(answers.at(-1)).toBe(429);
    expect(answers.slice(0, -1).every((status) => status === 401)).toBe(true);
    expect((await signIn({ code: 'wrong-again' })).answer.status).toBe(429);
    expect((await signIn({ token })).answer.status).toBe(201);
    // The operator's freshly minted code still works from the address the guesser holds back.
    const minted = await adminRequest({
      dataDir: data.dir,
      path: '/admin/v1/login-codes',
      method: 'POST',
      body: {},
    });
    const { code } = minted.json as { code: string };
    secrets.push(code);
    expect((await signIn({ code })).answer.status).toBe(201);
  });

  it("keeps a session across a restart, but not a signed-out one or a revoked token's", async () => {
    const kept = (await signIn({ token })).cookie;
    const signedOut = (await signIn({ token })).cookie;
    expect(
      (await tcp('/admin/v1/session', { method: 'DELETE', headers: { cookie: signedOut } })).status,
    ).toBe(204);
    const created = await adminRequest({
      dataDir: data.dir,
      method: 'POST',
      path: '/admin/v1/tokens',
      body: { name: 'moving on', role: 'viewer' },
    });
    const other = created.json as { id: string; token: string };
    secrets.push(other.token);
    const revokedCookie = (await signIn({ token: other.token })).cookie;
    await stop(served.serve);
    // Revoked while the daemon is down, as `modgate admin tokens revoke` does then.
    await revokeAdminToken(await DataDir.open(data.dir), other.id, new Date());
    served = await startServe(data.dir, { extra: ['--admin-listen', `127.0.0.1:${port}`] });
    expect((await tcp('/admin/v1/session', { headers: { cookie: kept } })).json).toMatchObject({
      name: 'ops',
    });
    expect((await tcp('/admin/v1/status', { headers: { cookie: kept } })).status).toBe(200);
    expect((await tcp('/admin/v1/status', { headers: { cookie: signedOut } })).status).toBe(401);
    expect((await tcp('/admin/v1/status', { headers: { cookie: revokedCookie } })).status).toBe(401);
    const file = await readFile(join(data.dir, 'admin-sessions.json'), 'utf8');
    for (const secret of secrets) expect(file).not.toContain(secret);
    expect(file).not.toContain(other.id);
  }, 60_000);
});
