/**
 * /admin/v1/keys over admin.sock of a real `modgate serve` (docs/admin.md, "API keys"): each
 * change acts on /v1 before the admin answer is read, with no wait (no file watcher involved),
 * an open event stream of a revoked key is closed, key text is shown once and hashes never, and
 * the changes survive a restart and are in the audit log with the local actor.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest, type AdminAnswer } from '../../harness/admin.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { openSse } from '../../harness/sse-client.ts';
import { eventually } from '../../harness/stack.ts';

interface IssuedKey {
  id: string;
  key: string;
  status: string;
  expires_at: string | null;
  rolled_from: string | null;
  rolled_to: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
}

interface ErrorBody {
  error: { code: string; details?: unknown };
}

describe('API keys over the admin API', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;
  let apiPort: number;

  const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    adminRequest({ dataDir: data.dir, method, path: `/admin/v1/keys${path}`, body, headers });
  const create = async (body: Record<string, unknown> = {}) => {
    const answer = await admin('POST', '', { name: 'bot', scopes: ['server:read', 'events:read'], ...body });
    expect(answer.status).toBe(201);
    return answer.json as IssuedKey;
  };
  // Without a mod connected, an accepted key gets 503 server_unavailable; a refused one 401/403.
  const v1 = async (key: string) =>
    (await fetch(`http://127.0.0.1:${apiPort}/v1/server`, { headers: { authorization: `Bearer ${key}` } }))
      .status;
  const codeOf = (answer: AdminAnswer) => (answer.json as ErrorBody).error.code;

  beforeAll(async () => {
    data = await makeDataDir();
    ({ serve, apiPort } = await startServe(data.dir));
  }, 60_000);

  afterAll(async () => {
    if (serve) await stop(serve);
    await data?.remove();
  });

  it('creates a key that works on /v1 as soon as the answer is read, and shows its text only then', async () => {
    const created = await create();
    expect(created.key).toMatch(new RegExp(`^mg_live_${created.id}_[A-Za-z0-9]{40}$`));
    expect(await v1(created.key)).toBe(503);
    const shown = await admin('GET', `/${created.id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain(created.key.slice(-40));
    const keysJson = await readFile(join(data.dir, 'keys.json'), 'utf8');
    const hash = (JSON.parse(keysJson) as { keys: { id: string; hash: string }[] }).keys.find(
      (key) => key.id === created.id,
    )?.hash as string;
    const listed = await admin('GET', '?limit=100');
    expect(listed.text).not.toContain(created.key.slice(-40));
    expect(listed.text).not.toContain(hash);
    expect(listed.text).not.toMatch(/"hash"/);
  });

  it('revokes a key: the next /v1 request is refused and its open event stream is closed', async () => {
    const created = await create();
    const stream = await openSse(`http://127.0.0.1:${apiPort}/v1/events`, {
      authorization: `Bearer ${created.key}`,
    });
    expect(stream.status).toBe(200);
    const revoked = await admin('DELETE', `/${created.id}`);
    expect(revoked.status).toBe(204);
    expect(await v1(created.key)).toBe(401);
    await stream.ended;
    expect((await admin('GET', `/${created.id}`)).json).toMatchObject({ status: 'revoked' });
    expect((await admin('DELETE', `/${created.id}`)).status).toBe(204);
  });

  it('records the last use of a key and shows it in the list', async () => {
    const created = await create();
    expect(created).toMatchObject({ last_used_at: null, last_used_ip: null });
    await v1(created.key);
    const shown = (await admin('GET', `/${created.id}`)).json as IssuedKey;
    expect(shown.last_used_ip).toBe('127.0.0.1');
    expect(Date.parse(shown.last_used_at as string)).not.toBeNaN();
  });

  it('changes the allowlist, the name and the expiry, acting on /v1 at once', async () => {
    const created = await create();
    const narrowed = await admin('PATCH', `/${created.id}`, {
      allow_ips: ['203.0.113.0/24'],
      name: 'renamed',
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.json).toMatchObject({ name: 'renamed', allow_ips: ['203.0.113.0/24'] });
    expect(await v1(created.key)).toBe(403);
    const widened = await admin('PATCH', `/${created.id}`, { allow_ips: [], expires_in: '1h' });
    expect(widened.json).toMatchObject({ allow_ips: [] });
    expect((widened.json as IssuedKey).expires_at).not.toBeNull();
    expect(await v1(created.key)).toBe(503);
    const cleared = await admin('PATCH', `/${created.id}`, { expires_at: null });
    expect(cleared.json).toMatchObject({ expires_at: null });
  });

  it('rolls a key: the new one works at once and the old one until the overlap ends', async () => {
    const old = await create();
    const rolled = await admin('POST', `/${old.id}/roll`, { expire_old_in: '2h' });
    expect(rolled.status).toBe(201);
    const fresh = rolled.json as IssuedKey & { old: IssuedKey };
    expect(fresh).toMatchObject({
      rolled_from: old.id,
      old: { id: old.id, rolled_to: fresh.id, status: 'active' },
    });
    expect(Date.parse(fresh.old.expires_at as string) - Date.now()).toBeGreaterThan(3_600_000);
    expect(await v1(fresh.key)).toBe(503);
    expect(await v1(old.key)).toBe(503);
    const again = await admin('POST', `/${old.id}/roll`, {});
    expect([again.status, codeOf(again)]).toEqual([409, 'conflict']);
  });

  it('answers a retried creation with the same Idempotency-Key with the same key and no text', async () => {
    const headers = { 'idempotency-key': `create-${Date.now()}` };
    const body = { name: 'idempotent', scopes: ['server:read'] };
    const first = await admin('POST', '', body, headers);
    const second = await admin('POST', '', body, headers);
    expect(first.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json).toEqual({ ...(first.json as IssuedKey), key: null });
    const listed = (await admin('GET', '?limit=100')).json as { data: { name: string }[] };
    expect(listed.data.filter((key) => key.name === 'idempotent')).toHaveLength(1);
  });

  it('pages the list with cursors bound to the filter, and refuses a forged one', async () => {
    for (let i = 0; i < 3; i++) await create({ name: `page-${i}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const page = (await admin('GET', query)).json as { data: { id: string }[]; next_cursor: string | null };
      seen.push(...page.data.map((key) => key.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    const everything = (await admin('GET', '?limit=100')).json as {
      data: { id: string }[];
      has_more: boolean;
    };
    expect(everything.has_more).toBe(false);
    expect(seen).toEqual(everything.data.map((key) => key.id));
    const first = (await admin('GET', '?limit=1')).json as { next_cursor: string };
    const foreign = await admin(
      'GET',
      `?limit=1&status=revoked&cursor=${encodeURIComponent(first.next_cursor)}`,
    );
    expect([foreign.status, codeOf(foreign)]).toEqual([400, 'validation_error']);
    const forged = await admin('GET', `?cursor=${encodeURIComponent(`${first.next_cursor}x`)}`);
    expect([forged.status, codeOf(forged)]).toEqual([400, 'validation_error']);
  });

  it('refuses bad input with validation_error naming the field, and unknown ids with not_found', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', '', { name: 'x', scopes: ['nope'] }],
      ['POST', '', { name: '', scopes: ['server:read'] }],
      ['POST', '', { name: 'x', scopes: ['server:read'], expires_in: '5y' }],
      ['POST', '', { name: 'x', scopes: ['server:read'], allow_ips: ['not-an-ip'] }],
      [
        'POST',
        '',
        {
          name: 'x',
          scopes: ['server:read'],
          allow_ips: Array.from({ length: 65 }, (_, i) => `10.${i}.0.0/16`),
        },
      ],
      ['POST', '', { name: 'x', scopes: ['server:read'], extra: true }],
      ['PATCH', '/abcdefabcdef', {}],
      ['PATCH', '/abcdefabcdef', { expires_in: '1h', expires_at: null }],
      ['POST', '/abcdefabcdef/roll', { expire_old_in: '31d' }],
    ];
    for (const [method, path, body] of cases) {
      const answer = await admin(method, path, body);
      expect([method, path, answer.status, codeOf(answer)]).toEqual([method, path, 400, 'validation_error']);
    }
    for (const [method, path] of [
      ['GET', '/abcdefabcdef'],
      ['DELETE', '/abcdefabcdef'],
      ['PATCH', '/abcdefabcdef'],
    ]) {
      const answer = await admin(
        method as string,
        path as string,
        method === 'PATCH' ? { name: 'x' } : undefined,
      );
      expect([method, answer.status, codeOf(answer)]).toEqual([method, 404, 'not_found']);
    }
  });

  it('keeps the changes across a restart and records them in the audit log with the local actor', async () => {
    const kept = await create({ name: 'kept' });
    const gone = await create({ name: 'gone' });
    await admin('DELETE', `/${gone.id}`);
    await stop(serve);
    ({ serve, apiPort } = await startServe(data.dir));
    expect(await v1(kept.key)).toBe(503);
    expect(await v1(gone.key)).toBe(401);
    await eventually(async () => {
      const lines = (await readFile(join(data.dir, 'audit.jsonl'), 'utf8')).trim().split('\n');
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      return entries.some(
        (entry) =>
          entry['route'] === '/admin/v1/keys/{id}' &&
          entry['method'] === 'DELETE' &&
          entry['target'] === `/admin/v1/keys/${gone.id}` &&
          (entry['actor'] as { kind?: string } | undefined)?.kind === 'local',
      );
    });
  }, 60_000);
});

describe('API keys over the admin TCP listener', () => {
  it('lets a provider holding an admin token create and roll a key, audited with the token', async () => {
    const data = await makeDataDir();
    const made = await data.cli(
      'admin',
      'tokens',
      'create',
      '--data-dir',
      data.dir,
      '--name',
      'provider',
      '--json',
    );
    const token = JSON.parse(made.stdout) as { id: string; token: string };
    const port = await freePort();
    const { serve, apiPort } = await startServe(data.dir, { extra: ['--admin-listen', `127.0.0.1:${port}`] });
    const tcp = (method: string, path: string, body?: unknown) =>
      adminRequest({ url: `http://127.0.0.1:${port}`, token: token.token, method, path, body });
    try {
      const created = await tcp('POST', '/admin/v1/keys', { name: 'customer-42', scopes: ['server:read'] });
      expect(created.status).toBe(201);
      const key = created.json as IssuedKey;
      const v1 = await fetch(`http://127.0.0.1:${apiPort}/v1/server`, {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(v1.status).toBe(503);
      expect((await tcp('POST', `/admin/v1/keys/${key.id}/roll`, { expire_old_in: '10m' })).status).toBe(201);
      const anonymous = await adminRequest({ url: `http://127.0.0.1:${port}`, path: '/admin/v1/keys' });
      expect(anonymous.status).toBe(401);
      await eventually(async () => {
        const text = await readFile(join(data.dir, 'audit.jsonl'), 'utf8').catch(() => '');
        const entries = text
          .trim()
          .split('\n')
          .filter((line) => line !== '')
          .map(
            (line) => JSON.parse(line) as { route?: string; actor?: { kind?: string; token_id?: string } },
          );
        return entries.some(
          (entry) =>
            entry.route === '/admin/v1/keys/{id}/roll' &&
            entry.actor?.kind === 'token' &&
            entry.actor.token_id === token.id,
        );
      });
    } finally {
      await stop(serve);
      await data.remove();
    }
  }, 60_000);
});
