import { describe, expect, it } from 'vitest';
import { OpError, type OpResult } from '../../../protocol/ops/index.ts';
import { freeSocialId, find, neverJoinedId, testWorld } from './players-support.ts';

describe('players.online', () => {
  const t = testWorld({ players: 200 });

  it('lists every connected player in roster order with its count', async () => {
    const result = await t.call('players.online', {});
    const online = t.world.players.online();
    expect(result.online).toBe(online.length);
    expect(result.data.map((row) => row.platform_id)).toEqual(online.map((p) => p.platform_id));
    expect(result.online).toBeGreaterThan(0);
  });

  it('filters to one connected player by platform id or social id', async () => {
    const player = find(t.world, (p) => p.online && p.social_id !== null);
    const byPlatform = await t.call('players.online', { platform_id: player.platform_id });
    expect(byPlatform.online).toBe(1);
    expect(byPlatform.data[0]).toMatchObject({ platform_id: player.platform_id, name: player.char_name });
    expect(await t.call('players.online', { social_id: player.social_id! })).toEqual(byPlatform);
  });

  it('answers an empty snapshot for an offline, unknown or unlinked player', async () => {
    const empty = { online: 0, data: [] };
    const offline = find(t.world, (p) => !p.online);
    expect(await t.call('players.online', { platform_id: offline.platform_id })).toEqual(empty);
    expect(await t.call('players.online', { platform_id: neverJoinedId(t.world) })).toEqual(empty);
    expect(await t.call('players.online', { social_id: freeSocialId(t.world) })).toEqual(empty);
  });
});

describe('player reads by ref', () => {
  const t = testWorld({ players: 200 });
  const linked = find(t.world, (p) => p.social_id !== null);

  it('answers the full profile by platform ref and by social ref', async () => {
    const profile = await t.call('players.get', { ref: { platform_id: linked.platform_id } });
    expect(profile.platform_id).toBe(linked.platform_id);
    expect(profile.social_id).toBe(linked.social_id);
    expect(profile.service_stats.total_kills).not.toBeNull();
    expect(await t.call('players.get', { ref: { social_id: linked.social_id! } })).toEqual(profile);
  });

  it('reports lifetime totals as null on a mod older than 2.0.47', async () => {
    const old = testWorld({ players: 20, modVersion: '2.0.46' });
    const player = old.world.players.list.itemAt(0);
    const { service_stats } = await old.call('players.get', { ref: { platform_id: player.platform_id } });
    expect(service_stats.total_kills).toBeNull();
    expect(service_stats.total_deaths).toBeNull();
    expect(service_stats.login_streak).toBeNull();
  });

  it('answers the inventory and the IP history, newest address first', async () => {
    const ref = { platform_id: linked.platform_id };
    const { items } = await t.call('players.inventory', { ref });
    expect(items).toEqual(t.world.players.inventory(linked));
    const ips = await t.call('players.ips', { ref });
    expect(ips.current_ip).toBe(ips.history[0]!.ip);
    const starts = ips.history.map((entry) => entry.first_seen);
    expect(starts).toEqual([...starts].sort().reverse());
  });

  it('answers the moderation state with the identity of the player', async () => {
    const state = await t.call('players.moderation', { ref: { social_id: linked.social_id! } });
    expect(state.player).toEqual({ platform_id: linked.platform_id, social_id: linked.social_id });
    expect(state.ban).toEqual(linked.moderation.ban);
  });

  for (const op of ['players.get', 'players.inventory', 'players.moderation', 'players.ips'] as const) {
    it(`answers not_found from ${op} for an unknown platform id and an unlinked social id`, async () => {
      for (const ref of [{ platform_id: neverJoinedId(t.world) }, { social_id: freeSocialId(t.world) }]) {
        const failure = t.call(op, { ref });
        await expect(failure).rejects.toBeInstanceOf(OpError);
        await expect(failure).rejects.toMatchObject({ code: 'not_found' });
      }
    });
  }
});

describe('players.violations', () => {
  const t = testWorld({ players: 600 });
  const player = t.world.players.list
    .values()
    .reduce((most, p) =>
      t.world.players.violations(p).length > t.world.players.violations(most).length ? p : most,
    );
  const history = t.world.players.violations(player).values();

  it('pages the whole history newest first, each entry once', async () => {
    expect(history.length).toBeGreaterThan(2);
    const ids: number[] = [];
    let after: string | null = null;
    do {
      const page: OpResult<'players.violations'> = await t.call('players.violations', {
        ref: { platform_id: player.platform_id },
        after,
        limit: 2,
      });
      ids.push(...page.data.map((v) => v.id));
      if (page.next !== null) expect(page.next).toBe(String(page.data.at(-1)!.id));
      after = page.next;
    } while (after !== null);
    expect(ids).toEqual(history.map((v) => v.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('answers an empty page for a player without history', async () => {
    const clean = find(t.world, (p) => t.world.players.violations(p).length === 0);
    const page = await t.call('players.violations', {
      ref: { platform_id: clean.platform_id },
      after: null,
      limit: 10,
    });
    expect(page).toEqual({ data: [], next: null });
  });

  it('rejects a position it never returned as invalid', async () => {
    const ref = { platform_id: player.platform_id };
    for (const after of ['abc', '-1', '01', '1.5', '99999999999999999999']) {
      await expect(t.call('players.violations', { ref, after, limit: 5 })).rejects.toMatchObject({
        code: 'invalid',
      });
    }
  });

  it('answers not_found for an unknown platform id', async () => {
    const ref = { platform_id: neverJoinedId(t.world) };
    await expect(t.call('players.violations', { ref, after: null, limit: 5 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
