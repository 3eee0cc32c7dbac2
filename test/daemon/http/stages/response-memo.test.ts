import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ROUTES } from '../../../../daemon/routes/index.ts';
import { type AnyRoute, defineRoute } from '../../../../daemon/http/define-route.ts';
import { eventually, startStack, type Stack } from '../../../../harness/stack.ts';

/** How often each memo test route's handler ran. */
const runs = { page: 0, copy: 0, direct: 0 };
const MAX_AGE_SEC = 5;
const row = z.object({}).passthrough();

function memoRoute(name: keyof typeof runs, handler: AnyRoute['handler']): AnyRoute {
  return defineRoute({
    method: 'GET',
    path: `/v1/memo/${name}`,
    operationId: `memo_${name}`,
    summary: name,
    tag: 'Test',
    scope: 'players:read',
    query: z.object({ cursor: z.string().optional() }).strict(),
    response: { status: 200, schema: row },
    cache: { kind: 'private', maxAgeSec: MAX_AGE_SEC },
    errors: [],
    handler: async (ctx) => {
      runs[name]++;
      return handler(ctx as never);
    },
  }) as AnyRoute;
}

const MEMO_ROUTES: AnyRoute[] = [
  memoRoute('page', ({ page, query }) =>
    page('players.list', {}, { cursor: query.cursor, limit: 3, tags: ['players'] }),
  ),
  // A copy is the handler's own object: its answer is not the read's.
  memoRoute('copy', async ({ read }) => ({
    ...(await read('players.list', { after: null, limit: 3 }, ['players'])),
  })),
  // A direct call may see what no cached read holds.
  memoRoute('direct', async ({ call, read }) => {
    await call('players.list', { after: null, limit: 1 });
    return read('players.list', { after: null, limit: 3 }, ['players']);
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/memo/touch',
    operationId: 'memo_touch',
    summary: 'drops the players tag',
    tag: 'Test',
    scope: 'players:read',
    response: { status: 204, schema: z.undefined() },
    cache: { kind: 'no-store' },
    errors: [],
    handler: async ({ invalidate }) => {
      invalidate(['players']);
      return undefined;
    },
  }) as AnyRoute,
];

describe('memoized cached reads', () => {
  let stack: Stack;
  let clock = Date.parse('2026-11-24T12:00:00Z');
  beforeAll(async () => {
    stack = await startStack({
      daemon: { routes: [...ROUTES, ...MEMO_ROUTES], pipeline: { now: () => clock } },
    });
  });
  afterAll(() => stack.close());

  it('answers a repeat read inside its window with the same bytes and ETag, without the handler', async () => {
    const before = runs.page;
    const first = await stack.call('/v1/memo/page');
    const second = await stack.call('/v1/memo/page');
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(runs.page - before).toBe(1);
    expect(String(second.body)).toBe(String(first.body));
    expect(second.headers['etag']).toBe(first.headers['etag']);
    expect(second.headers['cache-control']).toBe(`private, max-age=${MAX_AGE_SEC}`);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    const notModified = await stack.call('/v1/memo/page', {
      headers: { authorization: `Bearer ${stack.key}`, 'if-none-match': first.headers['etag'] as string },
    });
    expect(notModified.status).toBe(304);
    expect(runs.page - before).toBe(1);
  });

  it('runs the handler again once a write drops the read it came from, or the window ends', async () => {
    await stack.call('/v1/memo/page');
    const before = runs.page;
    expect((await stack.call('/v1/memo/touch', { method: 'POST' })).status).toBe(204);
    await stack.call('/v1/memo/page');
    expect(runs.page - before).toBe(1);
    clock += (MAX_AGE_SEC + 1) * 1000;
    await stack.call('/v1/memo/page');
    expect(runs.page - before).toBe(2);
  });

  it('keeps each key its own answer: the cursor inside is bound to the key', async () => {
    const { key } = await stack.data.createKey('--scopes', 'players:read');
    const asOther = { authorization: `Bearer ${key}` };
    // The daemon picks the new key up from the data dir within its poll interval.
    await eventually(async () => (await stack.call('/v1/server', { headers: asOther })).status !== 401);
    await stack.call('/v1/memo/page');
    const before = runs.page;
    const other = await stack.call('/v1/memo/page', { headers: asOther });
    const mine = await stack.call('/v1/memo/page');
    expect(runs.page - before).toBe(1);
    const cursor = (body: unknown) => (body as { next_cursor: string }).next_cursor;
    expect(cursor(other.json)).not.toBe(cursor(mine.json));
    const next = await stack.call(`/v1/memo/page?cursor=${encodeURIComponent(cursor(other.json))}`, {
      headers: asOther,
    });
    expect(next.status).toBe(200);
  });

  it('never memoizes an answer the handler built itself, or one after a direct call to the mod', async () => {
    const before = { ...runs };
    for (let i = 0; i < 3; i++) {
      expect((await stack.call('/v1/memo/copy')).status).toBe(200);
      expect((await stack.call('/v1/memo/direct')).status).toBe(200);
    }
    expect(runs.copy - before.copy).toBe(3);
    expect(runs.direct - before.direct).toBe(3);
  });
});
