/**
 * GET /admin/v1/audit (docs/admin.md, "Audit log") over a real admin.sock of an in-process
 * daemon: /v1 writes and admin requests newest first, filtered, in pages whose cursors keep
 * working when the log is rotated (moved, reopened as on SIGHUP, then gzipped) between pages.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';

let stack: Stack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

type Json = Record<string, unknown>;

async function admin(s: Stack, path: string, method = 'GET', body?: unknown) {
  const answer = await adminRequest({
    dataDir: s.data.dir,
    path,
    method,
    ...(body === undefined ? {} : { body }),
  });
  return { status: answer.status, json: answer.json as Json };
}

/** An audited /v1 write (the mod is offline: each is a 503, audited like any outcome). */
async function write(s: Stack, key = s.key): Promise<string> {
  const response = await fetch(`${s.baseUrl}/v1/commands`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ verb: 'Announce', args: ['audit'] }),
  });
  await response.arrayBuffer();
  return response.headers.get('x-request-id') as string;
}

async function lines(s: Stack, file = 'audit.jsonl'): Promise<Json[]> {
  const text = await readFile(join(s.data.dir, file), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Json);
}

const ids = (page: { json: Json }) => (page.json['data'] as Json[]).map((line) => String(line['request_id']));
const WRITES = '/admin/v1/audit?route=/v1/commands&limit=4';

describe('GET /admin/v1/audit', () => {
  it('pages newest first with a cursor that keeps working across a rotation between pages', async () => {
    const s = (stack = await startStack({ sim: false }));
    const before: string[] = [];
    for (let i = 0; i < 10; i += 1) before.push(await write(s));
    // (The data dir's set-up before the daemon started is audited too: the CLI's in-process admin.)
    await eventually(
      async () => (await lines(s)).filter((line) => line['route'] === '/v1/commands').length === 10,
    );
    const first = await admin(s, WRITES);
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(before.slice(6).reverse());
    expect(first.json['has_more']).toBe(true);

    // logrotate: move the file away, SIGHUP (the daemon reopens audit.jsonl), write on.
    await rename(join(s.data.dir, 'audit.jsonl'), join(s.data.dir, 'audit.jsonl.1'));
    await s.daemon.reload();
    const after = [await write(s), await write(s)];
    await eventually(async () => (await lines(s)).length === 2);
    const second = await admin(s, `${WRITES}&cursor=${String(first.json['next_cursor'])}`);
    expect(ids(second)).toEqual(before.slice(2, 6).reverse());

    // The next rotation compresses the moved file: the cursor still finds its place in it.
    const moved = await readFile(join(s.data.dir, 'audit.jsonl.1'));
    await writeFile(join(s.data.dir, 'audit.jsonl.2.gz'), gzipSync(moved), { mode: 0o600 });
    await rm(join(s.data.dir, 'audit.jsonl.1'));
    const third = await admin(s, `${WRITES}&cursor=${String(second.json['next_cursor'])}`);
    expect(ids(third)).toEqual(before.slice(0, 2).reverse());
    expect(third.json).toMatchObject({ has_more: false, next_cursor: null });

    const fresh = await admin(s, '/admin/v1/audit?route=/v1/commands&limit=200');
    expect(ids(fresh)).toEqual([...before, ...after].reverse());
  });

  it('opens a new audit log on a reload that a broken data file refuses', async () => {
    const s = (stack = await startStack({ sim: false }));
    const state = join(s.data.dir, 'state.json');
    const good = await readFile(state, 'utf8');
    await writeFile(state, '{ "api_enabled": ');
    // logrotate: move the file away and reload, while state.json happens to be broken.
    await rename(join(s.data.dir, 'audit.jsonl'), join(s.data.dir, 'audit.jsonl.1'));
    await expect(s.daemon.reload()).rejects.toThrow(/state\.json/);
    const after = await write(s);
    await eventually(async () => (await lines(s)).some((line) => line['request_id'] === after));
    expect((await lines(s, 'audit.jsonl.1')).map((line) => line['request_id'])).not.toContain(after);
    await writeFile(state, good);
  });

  it('filters by key, status class, admin actor and time, and refuses a cursor used with other filters', async () => {
    const s = (stack = await startStack({ sim: false }));
    // From here: the data dir's set-up before the daemon started is audited too (the CLI's in-process admin).
    const started = new Date().toISOString();
    const other = await s.data.createKey('--name', 'other', '--scopes', 'commands:execute');
    await eventually(async () => (await write(s, other.key)) !== '' && (await lines(s)).length > 0);
    const mine = await write(s);
    const hook = { url: 'http://127.0.0.1:9/hook', events: ['player.unbanned'] };
    expect((await admin(s, '/admin/v1/webhooks', 'POST', hook)).status).toBe(201);
    await eventually(async () => (await lines(s)).some((line) => line['actor'] !== undefined));
    const all = await lines(s);
    const byOther = await admin(s, `/admin/v1/audit?key_id=${other.id}`);
    expect(ids(byOther).length).toBeGreaterThan(0);
    expect((byOther.json['data'] as Json[]).every((line) => line['key_id'] === other.id)).toBe(true);
    expect(ids(await admin(s, '/admin/v1/audit?status=5xx&route=/v1/commands'))[0]).toBe(mine);
    const local = await admin(s, `/admin/v1/audit?actor=local:${process.getuid?.() ?? 0}&since=${started}`);
    // Newest first: the webhook, then the key `keys create` made through admin.sock.
    expect(local.json['data']).toEqual([
      expect.objectContaining({
        method: 'POST',
        route: '/admin/v1/webhooks',
        key_id: null,
        actor: expect.objectContaining({ kind: 'local' }),
      }),
      expect.objectContaining({
        method: 'POST',
        route: '/admin/v1/keys',
        actor: expect.objectContaining({ kind: 'local' }),
      }),
    ]);
    const since = String(all.at(-1)?.['time']);
    expect(ids(await admin(s, `/admin/v1/audit?since=${since}&actor=local`))).toHaveLength(1);
    expect(ids(await admin(s, `/admin/v1/audit?until=2000-01-01T00:00:00Z`))).toEqual([]);

    const paged = await admin(s, '/admin/v1/audit?limit=1');
    const foreign = await admin(
      s,
      `/admin/v1/audit?limit=1&status=2xx&cursor=${String(paged.json['next_cursor'])}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.json).toMatchObject({ error: { code: 'validation_error' } });
    const forged = await admin(s, '/admin/v1/audit?cursor=eyJ2IjoxfQ.AAAA');
    expect(forged.status).toBe(400);
    for (const bad of ['status=600', 'actor=root', 'limit=201', 'since=yesterday', 'route=v1']) {
      expect((await admin(s, `/admin/v1/audit?${bad}`)).status).toBe(400);
    }
  });
});
