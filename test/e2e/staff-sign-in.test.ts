/**
 * A staff member's sign-in link across a daemon restart (docs/admin.md, "Staff sign-in"): made
 * by one `serve`, used on the next, it signs in once as the token with its role, is kept only as
 * a hash in admin-tokens.json, and the sign-in is audited with the staff member's name.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { startServe, stop, type Served } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

interface Created {
  id: string;
  role: string;
  invite: { code: string; url: string | null; expires_at: string };
}

describe('a staff sign-in link', () => {
  let data: TestDataDir;
  let served: Served;
  let url: string;
  let created: Created;

  async function serve(): Promise<void> {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    served = await startServe(data.dir, { extra: ['--admin-listen', `127.0.0.1:${port}`] });
  }

  beforeAll(async () => {
    data = await makeDataDir();
    await serve();
    const answer = await adminRequest({
      dataDir: data.dir,
      method: 'POST',
      path: '/admin/v1/tokens',
      body: { name: 'mia', role: 'moderator', invite: true },
    });
    created = answer.json as Created;
    await stop(served.serve);
    await serve();
  }, 60_000);

  afterAll(async () => {
    await stop(served.serve);
    await data.remove();
  });

  it('is answered with the token, as a /login# link, and kept only as a hash', async () => {
    expect(created.role).toBe('moderator');
    expect(created.invite.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login#[A-Za-z0-9]{40}$/);
    expect(created.invite.url?.endsWith(`#${created.invite.code}`)).toBe(true);
    const file = await readFile(join(data.dir, 'admin-tokens.json'), 'utf8');
    expect(file).not.toContain(created.invite.code);
    expect(file).toContain('"invite"');
  });

  it('signs in once after a restart, as the token and its role, audited with its name', async () => {
    const signIn = () =>
      adminRequest({ url, method: 'POST', path: '/admin/v1/session', body: { code: created.invite.code } });
    const first = await signIn();
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ token_id: created.id, name: 'mia', role: 'moderator' });
    const cookie = String(first.headers['set-cookie']).split(';')[0] as string;
    const keys = await adminRequest({ url, path: '/admin/v1/keys', headers: { cookie } });
    expect(keys.json).toMatchObject({ error: { code: 'forbidden' } });
    expect((await signIn()).status).toBe(401);
    const file = await readFile(join(data.dir, 'admin-tokens.json'), 'utf8');
    expect(file).not.toContain('"invite"');
    const signedIn = async () =>
      (await readFile(join(data.dir, 'audit.jsonl'), 'utf8'))
        .split('\n')
        .filter((text) => text.includes('/admin/v1/session') && text.includes('"status":201'))
        .map((text) => (JSON.parse(text) as { actor: unknown }).actor);
    await eventually(async () => (await signedIn()).length > 0);
    expect(await signedIn()).toEqual([{ kind: 'session', token_id: created.id, name: 'mia' }]);
  });

  it('makes a new link that replaces an unspent one, and none for a revoked token', async () => {
    const socket = (method: string, path: string, body?: unknown) =>
      adminRequest({ dataDir: data.dir, method, path: `/admin/v1/tokens${path}`, body });
    const old = (await socket('POST', '', { name: 'leo', role: 'viewer', invite: true })).json as Created;
    const renewed = await socket('POST', `/${old.id}/invite`, {});
    expect(renewed.status).toBe(201);
    const signIn = (code: string) =>
      adminRequest({ url, method: 'POST', path: '/admin/v1/session', body: { code } });
    expect((await signIn(old.invite.code)).status).toBe(401);
    const { code } = renewed.json as { code: string };
    expect(await signIn(code)).toMatchObject({ status: 201, json: { name: 'leo', role: 'viewer' } });
    const again = (await socket('POST', `/${old.id}/invite`, {})).json as { code: string };
    expect((await socket('DELETE', `/${old.id}`)).status).toBe(204);
    expect((await signIn(again.code)).status).toBe(401);
    expect((await socket('POST', `/${old.id}/invite`, {})).json).toMatchObject({
      error: { code: 'conflict', details: { resource: 'admin_token', id: old.id } },
    });
  });
});
