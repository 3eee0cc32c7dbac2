import { describe, expect, it } from 'vitest';
import type { OpResult } from '../../../protocol/ops/index.ts';
import type { LedgerEntry } from '../../../mod-sim/world/index.ts';
import { ACTOR, economyWorld, failure, offlinePlayer, onlinePlayer, strangerId } from './economy-support.ts';

describe('economy.transactions', () => {
  it('pages the whole ledger newest first, each page continuing after the last id', async () => {
    const t = economyWorld({ players: 40 });
    const seen: LedgerEntry[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 100; guard++) {
      const page: OpResult<'economy.transactions'> = await t.call('economy.transactions', {
        after,
        limit: 100,
      });
      seen.push(...(page.data as LedgerEntry[]));
      if (page.next === null) break;
      after = page.next;
    }
    expect(seen).toHaveLength(t.world.ledger.length);
    expect(seen.map((e) => Number(e.id))).toEqual(
      Array.from({ length: t.world.ledger.length }, (_, i) => t.world.ledger.length - i),
    );
  });

  it('shows run-time entries first and finds them by player, asset, source and scope', async () => {
    const t = economyWorld();
    const player = offlinePlayer(t.world);
    const online = onlinePlayer(t.world);
    await t.call('economy.coins', {
      ref: { platform_id: player.platform_id },
      amount: 5,
      reason: 'a',
      actor: ACTOR,
    });
    await t.call('economy.currency', {
      ref: { platform_id: online.platform_id },
      currency: 'gold',
      mode: 'delta',
      amount: 2,
      reason: 'b',
      actor: ACTOR,
    });
    const newest = await t.call('economy.transactions', { after: null, limit: 2 });
    expect(newest.data.map((e) => e.reason)).toEqual(['b', 'a']);
    const mine = await t.call('economy.transactions', {
      after: null,
      limit: 100,
      platform_id: player.platform_id,
      asset: 'coins',
      source: 'api',
      scope: 'player',
    });
    expect(mine.data[0]?.reason).toBe('a');
    for (const entry of mine.data) {
      expect(entry).toMatchObject({
        player: { platform_id: player.platform_id },
        asset: 'coins',
        source: 'api',
      });
    }
  });

  it('finds the entries of a player created at run time', async () => {
    const t = economyWorld();
    const id = strangerId(t.world);
    await t.call('economy.coins', { ref: { platform_id: id }, amount: 5, reason: 'first', actor: ACTOR });
    const page = await t.call('economy.transactions', { after: null, limit: 10, platform_id: id });
    expect(page.data.map((e) => e.reason)).toEqual(['first']);
    expect(page.next).toBeNull();
  });

  it('keeps the date bounds inclusive', async () => {
    const t = economyWorld();
    const at = t.world.ledger.entry(1_000).at;
    const page = await t.call('economy.transactions', {
      after: null,
      limit: 100,
      start_date: at,
      end_date: at,
    });
    expect(page.data.length).toBeGreaterThan(0);
    for (const entry of page.data) expect(entry.at).toBe(at);
  });

  it('refuses an `after` that is not a ledger id', async () => {
    const t = economyWorld();
    expect((await failure(t.call('economy.transactions', { after: 'abc', limit: 5 }))).code).toBe('invalid');
  });
});
