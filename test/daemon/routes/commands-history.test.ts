import { beforeAll, describe, expect, it } from 'vitest';
import { historyBound } from '../../../daemon/routes/commands.ts';
import { type HistoryPage, errorOf, postCommand } from './commands-support.ts';
import { suiteStack } from '../../support/suite.ts';
import type { CommandHistoryEntry } from '../../../mod-sim/world/command-types.ts';

const ENTRY_KEYS = ['at', 'command', 'result', 'actor', 'source'];

/** The sim's entries as /v1 answers them: `source` null where the game recorded none. */
function asAnswered(entries: readonly CommandHistoryEntry[]) {
  return entries.map((entry) => ({ ...entry, source: entry.source ?? null }));
}

const IPV4 = /\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/;

const q = (params: Record<string, string>) =>
  `/v1/commands/history?${new URLSearchParams(params).toString()}`;

describe('GET /v1/commands/history', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0 } });
  const get = async (params: Record<string, string>) => {
    const res = await stack.call(q(params));
    return { res, page: res.json as HistoryPage };
  };

  beforeAll(async () => {
    // Two commands through the API, stamped at the world clock: 2025-06-01 12:00:00.000.
    await postCommand(stack, { verb: 'Announce', args: ['boundary', 'marker'] });
    await postCommand(stack, { verb: 'Online' });
  });

  it('answers 50 entries newest first, each with exactly the spec keys, and no IP anywhere', async () => {
    const { res, page } = await get({});
    expect(res.status).toBe(200);
    expect(Object.keys(page)).toEqual(['data', 'has_more', 'next_cursor']);
    expect(page.data).toHaveLength(50);
    expect(page.has_more).toBe(true);
    expect(page.data[0]?.command).toBe('#Online');
    expect(page.data[1]?.command).toBe('#Announce boundary marker');
    for (let i = 1; i < page.data.length; i++) expect(page.data[i - 1]!.at >= page.data[i]!.at).toBe(true);
    for (const entry of page.data) expect(Object.keys(entry)).toEqual(ENTRY_KEYS);
    // Run through /v1, the newest say `api`; the generated history, like a game's entries from
    // before the field, records none: null.
    expect(page.data.slice(0, 2).map((entry) => entry.source)).toEqual(['api', 'api']);
    expect(page.data.at(-1)?.source).toBeNull();
    const text = res.body!.toString('utf8');
    expect(text).not.toMatch(IPV4);
    expect(text).not.toContain('"ip');
  });

  it('is never cached: no-store, no ETag, and every request reaches the game', async () => {
    const before = stack.sim!.opCounts.get('commands.history') ?? 0;
    const { res } = await get({ limit: '1' });
    await get({ limit: '1' });
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['etag']).toBeUndefined();
    expect(stack.sim!.opCounts.get('commands.history')).toBe(before + 2);
  });

  it('shows a command run through the API on the next read', async () => {
    await postCommand(stack, { verb: 'SetWeather', args: ['Fog'] });
    const { page } = await get({ limit: '1' });
    expect(page.data[0]).toMatchObject({ command: '#SetWeather Fog', result: 'Weather set to Fog' });
    await postCommand(stack, { verb: 'SetWeather', args: ['Snow'] });
    expect((await get({ limit: '1' })).page.data[0]?.command).toBe('#SetWeather Snow');
  });

  it('walks every entry exactly once with cursors', async () => {
    const world = stack.sim!.world;
    const expected = world.commands.history.query(undefined, 1_000_000).items;
    const seen: HistoryPage['data'] = [];
    let cursor: string | null = null;
    do {
      const { page }: { page: HistoryPage } = await get({ limit: '100', ...(cursor ? { cursor } : {}) });
      seen.push(...page.data);
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor !== null);
    expect(seen).toEqual(asAnswered(expected));
  });

  it('refuses a tampered cursor and a cursor used with other filters', async () => {
    const { page } = await get({ limit: '5', command: 'Spawn' });
    const cursor = page.next_cursor!;
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    expect((await get({ limit: '5', command: 'Spawn', cursor: tampered })).res.status).toBe(400);
    expect((await get({ limit: '5', command: 'Kick', cursor })).res.status).toBe(400);
    expect((await get({ limit: '5', command: 'Spawn', cursor })).res.status).toBe(200);
  });

  it('filters by text contained in the command', async () => {
    const { page } = await get({ command: 'SpawnItem', limit: '100' });
    expect(page.data.length).toBeGreaterThan(0);
    for (const entry of page.data) expect(entry.command).toContain('SpawnItem');
    expect((await get({ command: 'no such command text' })).page.data).toEqual([]);
  });

  it.each([
    ['0', 400],
    ['101', 400],
    ['1e1', 400],
    ['ten', 400],
    ['1', 200],
    ['100', 200],
  ])('answers limit=%s with %i', async (limit, status) => {
    expect((await get({ limit })).res.status).toBe(status);
  });

  it('treats a bare start_date as 00:00:00.000 and a bare end_date as 23:59:59.999, inclusive', async () => {
    const world = stack.sim!.world;
    const day = world.commands.history
      .query(undefined, 1_000_000)
      .items.filter((e) => e.at >= '2025-03-10 00:00:00.000' && e.at <= '2025-03-10 23:59:59.999');
    const { page } = await get({ start_date: '2025-03-10', end_date: '2025-03-10', limit: '100' });
    expect(day.length).toBeGreaterThan(0);
    expect(page.data).toEqual(asAnswered(day));
  });

  it.each([
    [{ end_date: '2025-06-01 12:00:00' }, true],
    [{ end_date: '2025-06-01 12:00:00.000' }, true],
    [{ end_date: '2025-06-01 11:59:59.999' }, false],
    [{ end_date: '2025-06-01' }, true],
    [{ start_date: '2025-06-01 12:00:00.000' }, true],
    [{ start_date: '2025-06-01 12:00:00' }, true],
    [{ start_date: '2025-06-01 12:00:00.001' }, false],
    [{ start_date: '2025-06-01' }, true],
    [{ start_date: '2025-06-02' }, false],
  ])('includes the boundary entries for %j: %s', async (bounds, included) => {
    const { res, page } = await get({ command: 'boundary marker', ...bounds });
    expect(res.status).toBe(200);
    expect(page.data.length).toBe(included ? 1 : 0);
  });

  it.each([
    '2025-05-01',
    '2024-02-29',
    '2025-05-01 00:00:00',
    '2025-05-01 23:59:59',
    '2025-05-01 12:30:00.250',
    '1999-12-31 23:59:59.999',
  ])('accepts the date form %s', async (date) => {
    expect((await get({ start_date: date })).res.status).toBe(200);
    expect((await get({ end_date: date })).res.status).toBe(200);
  });

  it.each([
    '2025-02-30',
    '2023-02-29',
    '2025-04-31',
    '2025-13-01',
    '2025-00-10',
    '2025-05-00',
    '2025-05-01 24:00:00',
    '2025-05-01 12:60:00',
    '2025-05-01 12:00:60',
    '2025-05-01T12:00:00',
    '2025-05-01T12:00:00Z',
    '2025-05-01 12:00:00+02:00',
    '2025-05-01 12:00',
    '2025-05-01 12:00:00.5',
    '2025-05-01 12:00:00.1234',
    '2025-05-01 12:00:00.',
    '2025-5-1',
    '25-05-01',
    '20250501',
    '01/05/2025',
    ' 2025-05-01',
    '2025-05-01 ',
    '2025-05-01  12:00:00',
    '',
    'yesterday',
    '1746100000',
  ])('refuses the date %j with 400', async (date) => {
    for (const name of ['start_date', 'end_date']) {
      const { res } = await get({ [name]: date });
      expect(res.status).toBe(400);
      expect(errorOf(res.json)).toMatchObject({ code: 'validation_error' });
    }
  });

  it('refuses a start_date after the end_date', async () => {
    const { res } = await get({ start_date: '2025-05-02', end_date: '2025-05-01' });
    expect(res.status).toBe(400);
    expect(errorOf(res.json).message).toContain('start_date');
  });

  it('refuses an empty command filter, an unknown parameter and a repeated one', async () => {
    expect((await get({ command: '' })).res.status).toBe(400);
    expect((await get({ ip: '10.0.0.1' })).res.status).toBe(400);
    expect((await stack.call('/v1/commands/history?limit=1&limit=2')).status).toBe(400);
  });
});

describe('historyBound', () => {
  it.each([
    ['2025-05-01', 'start', '2025-05-01 00:00:00.000'],
    ['2025-05-01', 'end', '2025-05-01 23:59:59.999'],
    ['2025-05-01 08:09:10', 'start', '2025-05-01 08:09:10.000'],
    ['2025-05-01 08:09:10', 'end', '2025-05-01 08:09:10.999'],
    ['2025-05-01 08:09:10.042', 'end', '2025-05-01 08:09:10.042'],
    ['2000-02-29', 'start', '2000-02-29 00:00:00.000'],
  ] as const)('normalises %s as a %s bound to %s', (text, edge, bound) => {
    expect(historyBound(text, edge)).toBe(bound);
  });

  it('knows which years are leap years', () => {
    expect(historyBound('1900-02-29', 'start')).toBeUndefined();
    expect(historyBound('2000-02-29', 'start')).toBeDefined();
    expect(historyBound('2028-02-29', 'start')).toBeDefined();
  });
});
