/**
 * Admin writes while a data file is broken or edited by hand (docs/admin.md, "How a request is
 * handled"): a write reads back only the file it wrote, so a broken other file neither fails it
 * nor keeps its effect from the running daemon (a revoked key is refused at once), and a pending
 * hand edit of another file is not applied by it; a write whose own file is broken is 409
 * `conflict` naming the file, writes nothing, and can be sent again with the same
 * Idempotency-Key once the file is fixed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { startStack, type Stack } from '../../harness/stack.ts';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const admin = (s: Stack, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  adminRequest({ dataDir: s.data.dir, method, path, body, ...(headers ? { headers } : {}) });

async function breakFile(s: Stack, name: string): Promise<string> {
  const path = join(s.data.dir, name);
  const good = await readFile(path, 'utf8');
  await writeFile(path, '{ "broken": ');
  return good;
}

describe('admin writes beside a broken or hand-edited data file', () => {
  it('revokes a key at once while another data file is broken', async () => {
    const s = (stack = await startStack({ sim: false }));
    const created = await admin(s, 'POST', '/admin/v1/keys', { name: 'leaving', scopes: ['server:read'] });
    expect(created.status).toBe(201);
    const { id, key } = created.json as { id: string; key: string };
    const asKey = () => s.call('/v1/server', { headers: { authorization: `Bearer ${key}` } });
    expect((await asKey()).status).not.toBe(401);
    await breakFile(s, 'mod-keys.json');
    expect((await admin(s, 'DELETE', `/admin/v1/keys/${id}`)).status).toBe(204);
    expect((await asKey()).status).toBe(401);
    const token = await admin(s, 'POST', '/admin/v1/tokens', { name: 'ops' });
    expect(token.status).toBe(201);
    expect((await admin(s, 'PUT', '/admin/v1/api', { enabled: false })).status).toBe(200);
    expect((await s.call('/v1/server')).status).toBe(404);
  });

  it('leaves a hand edit of another file for the next reload', async () => {
    const s = (stack = await startStack({ sim: false }));
    const state = join(s.data.dir, 'state.json');
    const edited = JSON.parse(await readFile(state, 'utf8')) as Record<string, unknown>;
    await writeFile(state, JSON.stringify({ ...edited, api_enabled: false }), { mode: 0o600 });
    expect(
      (await admin(s, 'POST', '/admin/v1/keys', { name: 'other', scopes: ['server:read'] })).status,
    ).toBe(201);
    expect((await s.call('/v1/server')).status).not.toBe(404);
    await s.daemon.reload();
    expect((await s.call('/v1/server')).status).toBe(404);
  });

  it('answers 409 naming its own broken file, writes nothing, and keeps no Idempotency-Key', async () => {
    const s = (stack = await startStack({ sim: false }));
    const good = await breakFile(s, 'keys.json');
    const request = () =>
      admin(
        s,
        'POST',
        '/admin/v1/keys',
        { name: 'new', scopes: ['server:read'] },
        { 'idempotency-key': 'k-1' },
      );
    const refused = await request();
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({
      error: { code: 'conflict', message: expect.stringContaining(join(s.data.dir, 'keys.json')) },
    });
    expect(await readFile(join(s.data.dir, 'keys.json'), 'utf8')).toBe('{ "broken": ');
    await writeFile(join(s.data.dir, 'keys.json'), good, { mode: 0o600 });
    const retried = await request();
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});
