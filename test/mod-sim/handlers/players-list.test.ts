import { describe, expect, it } from 'vitest';
import type { OpArgs } from '../../../protocol/ops/index.ts';
import { ROSTER_KEYS } from '../../support/roster.ts';
import { freeSocialId, find, neverJoinedId, testWorld } from './players-support.ts';

type Filters = Omit<OpArgs<'players.list'>, 'after' | 'limit'>;

describe('players.list', () => {
  const t = testWorld({ players: 300 });
  const roster = t.world.players.list.values();

  /** Every page of a filtered list, in order; fails on a loop. */
  async function walk(filters: Filters, limit: number): Promise<{ ids: string[]; totals: number[] }> {
    const ids: string[] = [];
    const totals: number[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 1_000; pages++) {
      const page = await t.list({ ...filters, after, limit });
      ids.push(...page.data.map((row) => row.platform_id));
      totals.push(page.total);
      if (page.next === null) return { ids, totals };
      expect(page.next).toBe(page.data.at(-1)?.platform_id);
      after = page.next;
    }
    throw new Error('paging did not end');
  }

  const cases: Array<[string, Filters, (p: (typeof roster)[number]) => boolean]> = [
    ['no filter', {}, () => true],
    ['online=true', { online: true }, (p) => p.online],
    ['online=false', { online: false }, (p) => !p.online],
    ['a search', { search: 'a' }, (p) => /a/i.test(p.char_name) || /a/i.test(p.platform_name)],
    [
      'a search with online=false',
      { search: 'e', online: false },
      (p) => !p.online && (/e/i.test(p.char_name) || /e/i.test(p.platform_name)),
    ],
  ];

  for (const [name, filters, matches] of cases) {
    it(`visits every matching player exactly once, in platform id order, with ${name}`, async () => {
      const expected = roster.filter(matches).map((p) => p.platform_id);
      expect(expected.length).toBeGreaterThan(0);
      for (const limit of [1, 7, 50, 100]) {
        const { ids, totals } = await walk(filters, limit);
        expect(ids).toEqual(expected);
        expect(new Set(totals)).toEqual(new Set([expected.length]));
      }
    });
  }

  it('counts every player in total and says when more follow', async () => {
    const page = await t.list({ limit: 10 });
    expect(page.total).toBe(300);
    expect(page.data).toHaveLength(10);
    expect(page.next).toBe(roster[9]?.platform_id);
  });

  it('starts after a key that is not a player at the next platform id', async () => {
    const gap = `${roster[4]!.platform_id.slice(0, 16)}`;
    const page = await t.list({ after: gap, limit: 1 });
    expect(page.data[0]!.platform_id > gap).toBe(true);
    expect(page.data[0]!.platform_id).toBe(roster.find((p) => p.platform_id > gap)!.platform_id);
  });

  it('answers an empty last page after the highest platform id', async () => {
    const page = await t.list({ after: roster.at(-1)!.platform_id });
    expect(page).toEqual({ data: [], next: null, total: 300 });
  });

  it('searches character and platform names without regard to case', async () => {
    const player = roster[17]!;
    const byChar = await t.list({ search: player.char_name.toUpperCase() });
    expect(byChar.data.map((r) => r.platform_id)).toContain(player.platform_id);
    const byPlatform = await t.list({ search: player.platform_name.toLowerCase() });
    expect(byPlatform.data.map((r) => r.platform_id)).toContain(player.platform_id);
    for (const row of byChar.data) {
      const needle = player.char_name.toLowerCase();
      expect(
        row.char_name.toLowerCase().includes(needle) || row.platform_name.toLowerCase().includes(needle),
      ).toBe(true);
    }
    expect(await t.list({ search: 'no player is called this' })).toEqual({ data: [], next: null, total: 0 });
  });

  it('finds one player by platform id or social id', async () => {
    const player = find(t.world, (p) => p.social_id !== null);
    const byPlatform = await t.list({ platform_id: player.platform_id });
    expect(byPlatform).toEqual({
      data: [expect.objectContaining({ platform_id: player.platform_id })],
      next: null,
      total: 1,
    });
    const bySocial = await t.list({ social_id: player.social_id! });
    expect(bySocial.data.map((r) => r.social_id)).toEqual([player.social_id]);
    expect(bySocial.total).toBe(1);
  });

  it('answers an empty page, never not_found, for ids that resolve to nobody', async () => {
    const empty = { data: [], next: null, total: 0 };
    expect(await t.list({ social_id: freeSocialId(t.world) })).toEqual(empty);
    expect(await t.list({ platform_id: neverJoinedId(t.world) })).toEqual(empty);
  });

  it('applies the online filter to a player found by id', async () => {
    const offline = find(t.world, (p) => !p.online);
    expect((await t.list({ platform_id: offline.platform_id, online: true })).total).toBe(0);
    expect((await t.list({ platform_id: offline.platform_id, online: false })).total).toBe(1);
  });

  it('returns the roster row with exactly the spec keys', async () => {
    const page = await t.list({ limit: 10 });
    expect(Object.keys(page.data[0]!)).toEqual(ROSTER_KEYS);
  });

  it('follows presence changes in the online filter and its total', async () => {
    const local = testWorld({ players: 40, onlineShare: 0 });
    expect((await local.list({ online: true })).total).toBe(0);
    const player = local.world.players.list.itemAt(3);
    local.world.players.setOnline(player, {
      ping: 30,
      position: { x: 1, y: 2, z: 3 },
      stance: 'prone',
      alive: true,
      conscious: true,
      immortal: false,
      super_jump: false,
      item_in_hands: null,
    });
    const page = await local.list({ online: true });
    expect(page.data.map((r) => r.platform_id)).toEqual([player.platform_id]);
    expect(page.total).toBe(1);
    expect((await local.list({ online: false })).total).toBe(39);
  });
});
