import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry, World } from '../../../mod-sim/world/index.ts';
import { LEDGER_SOURCES, createWorld } from '../../../mod-sim/world/index.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';
import { errorOf, ledger, type LedgerPage } from './economy-support.ts';

const UNLIMITED = { limit: 1_000_000, windowSec: 60 };

/** Every entry of the world's ledger, newest first, read straight from the world. */
function newestFirst(world: World): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (let seq = world.ledger.length - 1; seq >= 0; seq--) out.push(world.ledger.entry(seq));
  return out;
}

/** Every page of a query through the API, following next_cursor. */
async function allPages(stack: Stack, query: Record<string, string>): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  let page: LedgerPage = await ledger(stack, query);
  for (let guard = 0; guard < 1_000; guard++) {
    out.push(...page.data);
    if (page.next_cursor === null) return out;
    page = await ledger(stack, { ...query, cursor: page.next_cursor });
  }
  throw new Error('paging did not end');
}

describe('GET /v1/economy/transactions', () => {
  let stack: Stack;
  let entries: LedgerEntry[];

  beforeAll(async () => {
    stack = await startStack({
      sim: { catalogDelayMs: 0, activityIntervalMs: 0, world: createWorld({ players: 60 }) },
      daemon: { pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED } },
    });
    entries = newestFirst(stack.sim!.world);
  });
  afterAll(() => stack.close());

  it('answers 50 entries newest first, without total, never cached', async () => {
    const res = await stack.call('/v1/economy/transactions');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['etag']).toBeUndefined();
    const page = res.json as LedgerPage;
    expect(Object.keys(page)).toEqual(['data', 'has_more', 'next_cursor']);
    expect(page.data).toEqual(entries.slice(0, 50));
    expect(page.has_more).toBe(true);
  });

  it('reaches the game on every request', async () => {
    const before = stack.sim!.opCounts.get('economy.transactions') ?? 0;
    await Promise.all([ledger(stack), ledger(stack), ledger(stack)]);
    expect(stack.sim!.opCounts.get('economy.transactions')).toBe(before + 3);
  });

  it('shows entries from every source, with null player and balances on bulk entries', async () => {
    const all = await allPages(stack, { limit: '100' });
    expect(all).toEqual(entries);
    expect(new Set(all.map((e) => e.source))).toEqual(new Set(LEDGER_SOURCES));
    const bulk = all.filter((e) => e.scope !== 'player');
    expect(bulk.length).toBeGreaterThan(0);
    for (const entry of bulk)
      expect(entry).toMatchObject({ player: null, balance_before: null, balance_after: null });
  });

  it.each<[string, (all: LedgerEntry[]) => Record<string, string>]>([
    ['no filter', () => ({})],
    ['platform_id', (all) => ({ platform_id: all.find((e) => e.player !== null)!.player!.platform_id })],
    ['asset', () => ({ asset: 'gold' })],
    ['source', () => ({ source: 'pack' })],
    ['scope', () => ({ scope: 'all' })],
    ['a date window', () => ({ start_date: '2025-01-01 00:00:00', end_date: '2025-02-28 23:59:59' })],
    ['asset, source and scope together', () => ({ asset: 'coins', source: 'api', scope: 'player' })],
  ])('pages through exactly the matching entries by cursor: %s', async (_what, make) => {
    const filters = make(entries);
    const matches = (e: LedgerEntry) =>
      (filters['platform_id'] === undefined || e.player?.platform_id === filters['platform_id']) &&
      (filters['asset'] === undefined || e.asset === filters['asset']) &&
      (filters['source'] === undefined || e.source === filters['source']) &&
      (filters['scope'] === undefined || e.scope === filters['scope']) &&
      (filters['start_date'] === undefined || e.at >= filters['start_date']) &&
      (filters['end_date'] === undefined || e.at <= filters['end_date']);
    const expected = entries.filter(matches);
    expect(expected.length).toBeGreaterThan(0);
    expect(await allPages(stack, { ...filters, limit: '100' })).toEqual(expected);
  });

  it('answers an empty page for a platform id with no entries', async () => {
    const page = await ledger(stack, { platform_id: '76561180000000777' });
    expect(page).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it.each([
    ['limit=0', 'limit=0'],
    ['limit=101', 'limit=101'],
    ['a date without time', 'start_date=2025-01-01'],
    ['an ISO date', 'end_date=2025-01-01T00:00:00Z'],
    ['milliseconds', 'start_date=2025-01-01%2000:00:00.000'],
    ['a date that does not exist', 'start_date=2025-02-30%2000:00:00'],
    ['start after end', 'start_date=2025-03-01%2000:00:00&end_date=2025-02-01%2000:00:00'],
    ['an unknown asset', 'asset=diamonds'],
    ['an unknown source', 'source=shop'],
    ['an unknown scope', 'scope=squad'],
    ['a malformed platform id', 'platform_id=123'],
    ['a forged cursor', 'cursor=abc'],
    ['an unknown parameter', 'player=1'],
  ])('answers 400 for %s', async (_what, query) => {
    const res = await stack.call(`/v1/economy/transactions?${query}`);
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('validation_error');
  });

  it('refuses a cursor used with other filters than it was made for', async () => {
    const first = await ledger(stack, { asset: 'cash', limit: '5' });
    const res = await stack.call(`/v1/economy/transactions?asset=gold&limit=5&cursor=${first.next_cursor}`);
    expect(res.status).toBe(400);
  });

  it('answers 403 insufficient_scope without economy:read', async () => {
    const { key } = await stack.data.createKey('--name', 'no-ledger', '--scopes', 'economy:write');
    const res = await stack.call('/v1/economy/transactions', { headers: { authorization: `Bearer ${key}` } });
    expect(errorOf(res.json)).toMatchObject({
      code: 'insufficient_scope',
      details: { missing_scope: 'economy:read' },
    });
  });
});

describe('GET /v1/economy/transactions over a million-entry ledger', () => {
  let stack: Stack;
  let world: World;

  beforeAll(async () => {
    world = createWorld({ players: 2_000, ledgerEntries: 1_000_000 });
    stack = await startStack({
      sim: { catalogDelayMs: 0, activityIntervalMs: 0, world },
      daemon: { pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED } },
    });
  }, 60_000);
  afterAll(() => stack.close());

  it('answers a deep page, and the pages after it by cursor, with exactly the right rows', async () => {
    expect(world.ledger.length).toBe(1_000_000);
    const deep = world.ledger.entry(250_000).at;
    // The newest entry at or before `deep`: entries are in time order, several may share a second.
    let top = 250_000;
    while (top + 1 < world.ledger.length && world.ledger.entry(top + 1).at <= deep) top++;
    const first = await ledger(stack, { end_date: deep, limit: '100' });
    const second = await ledger(stack, { end_date: deep, limit: '100', cursor: first.next_cursor! });
    const third = await ledger(stack, { end_date: deep, limit: '100', cursor: second.next_cursor! });
    const rows = [...first.data, ...second.data, ...third.data];
    expect(rows.map((e) => e.id)).toEqual(Array.from({ length: 300 }, (_, i) => String(top + 1 - i)));
    expect(rows).toEqual(Array.from({ length: 300 }, (_, i) => world.ledger.entry(top - i)));
    expect(third.has_more).toBe(true);
  });

  it('pages one player’s entries deep in the ledger, matching a scan of the whole ledger', async () => {
    const player = world.players.list.itemAt(1_234).platform_id;
    const expected: LedgerEntry[] = [];
    for (let seq = world.ledger.length - 1; seq >= 0; seq--) {
      const entry = world.ledger.entry(seq);
      if (entry.player?.platform_id === player && entry.asset === 'cash') expected.push(entry);
    }
    expect(expected.length).toBeGreaterThan(10);
    expect(await allPages(stack, { platform_id: player, asset: 'cash', limit: '7' })).toEqual(expected);
  });

  it('reaches the oldest entries through an end bound', async () => {
    const oldest = world.ledger.entry(0).at;
    const page = await ledger(stack, { end_date: oldest, limit: '100' });
    expect(page.data.at(-1)?.id).toBe('1');
    expect(page.has_more).toBe(false);
  });
});
