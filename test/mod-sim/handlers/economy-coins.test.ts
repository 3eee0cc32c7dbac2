import { describe, expect, it } from 'vitest';
import { BULK_COIN_COOLDOWN_MS, clearBulkCoinCooldown } from '../../../mod-sim/handlers/economy.ts';
import {
  ACTOR,
  ACTOR_IDENTITY,
  economyWorld,
  failure,
  linkedPlayer,
  offlinePlayer,
  onlinePlayer,
  strangerId,
} from './economy-support.ts';

describe('economy.coins', () => {
  it('credits and debits one player, writing a ledger row with both balances, source api and the actor', async () => {
    const t = economyWorld();
    const player = offlinePlayer(t.world);
    const coins = player.coins;
    const credit = await t.call('economy.coins', {
      ref: { platform_id: player.platform_id },
      amount: 40,
      reason: 'Support credit',
      actor: ACTOR,
    });
    expect(credit).toEqual({ amount: 40, balance: coins + 40, player: player.refs.identity });
    expect(t.newest()).toMatchObject({
      player: player.refs.identity,
      actor: ACTOR_IDENTITY,
      asset: 'coins',
      mode: 'delta',
      amount: 40,
      balance_before: coins,
      balance_after: coins + 40,
      scope: 'player',
      affected_count: null,
      source: 'api',
      reason: 'Support credit',
      pack_name: null,
    });
    const debit = await t.call('economy.coins', {
      ref: { platform_id: player.platform_id },
      amount: -15,
      reason: 'Refund reversed',
      actor: ACTOR,
    });
    expect(debit.balance).toBe(coins + 25);
    expect(player.coins).toBe(coins + 25);
  });

  it('resolves a linked social id', async () => {
    const t = economyWorld();
    const player = linkedPlayer(t.world);
    const result = await t.call('economy.coins', {
      ref: { social_id: player.social_id! },
      amount: 3,
      reason: 'r',
      actor: ACTOR,
    });
    expect(result.player).toEqual({ platform_id: player.platform_id, social_id: player.social_id });
  });

  it('creates the player when a credit names a well-formed platform id nobody has', async () => {
    const t = economyWorld();
    const id = strangerId(t.world);
    const size = t.world.players.size;
    const result = await t.call('economy.coins', {
      ref: { platform_id: id },
      amount: 250,
      reason: 'Welcome bonus',
      actor: ACTOR,
    });
    expect(result).toEqual({ amount: 250, balance: 250, player: { platform_id: id, social_id: null } });
    const created = t.world.players.byPlatformId(id)!;
    expect(t.world.players.size).toBe(size + 1);
    expect(created).toMatchObject({
      coins: 250,
      money: 0,
      gold: 0,
      online: false,
      user_profile_id: size + 1,
    });
    expect(t.newest()).toMatchObject({ balance_before: 0, balance_after: 250 });
    const mine = t.world.ledger.query({ limit: 10, filter: { platform_id: id } }).items;
    expect(mine).toHaveLength(1);
  });

  it('answers not_found for a debit to an unknown player and for an unlinked social id, changing nothing', async () => {
    const t = economyWorld();
    const entries = t.world.ledger.length;
    const size = t.world.players.size;
    const unknown = await failure(
      t.call('economy.coins', {
        ref: { platform_id: strangerId(t.world) },
        amount: -1,
        reason: 'r',
        actor: ACTOR,
      }),
    );
    expect(unknown.code).toBe('not_found');
    const unlinked = await failure(
      t.call('economy.coins', {
        ref: { social_id: '99000000000000000001' },
        amount: 5,
        reason: 'r',
        actor: ACTOR,
      }),
    );
    expect(unlinked.code).toBe('not_found');
    expect(t.world.players.size).toBe(size);
    expect(t.world.ledger.length).toBe(entries);
  });

  it('refuses a debit above the balance with conflict, saying why, and changes nothing', async () => {
    const t = economyWorld();
    const player = offlinePlayer(t.world, 2);
    player.coins = 10;
    const entries = t.world.ledger.length;
    const error = await failure(
      t.call('economy.coins', {
        ref: { platform_id: player.platform_id },
        amount: -11,
        reason: 'r',
        actor: ACTOR,
      }),
    );
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('Insufficient coins');
    expect(error.message).toContain('has 10');
    expect(player.coins).toBe(10);
    expect(t.world.ledger.length).toBe(entries);
    const exact = await t.call('economy.coins', {
      ref: { platform_id: player.platform_id },
      amount: -10,
      reason: 'r',
      actor: ACTOR,
    });
    expect(exact.balance).toBe(0);
  });

  it('refuses a credit that would pass the 32-bit range as invalid', async () => {
    const t = economyWorld();
    const player = offlinePlayer(t.world);
    player.coins = 2_147_483_000;
    const error = await failure(
      t.call('economy.coins', {
        ref: { platform_id: player.platform_id },
        amount: 1_000,
        reason: 'r',
        actor: ACTOR,
      }),
    );
    expect(error.code).toBe('invalid');
    expect(player.coins).toBe(2_147_483_000);
  });

  it('applies an op id once and answers a repeat with the first result', async () => {
    const t = economyWorld();
    const player = offlinePlayer(t.world);
    const coins = player.coins;
    const args = { ref: { platform_id: player.platform_id }, amount: 100, reason: 'r', actor: ACTOR };
    const first = await t.call('economy.coins', args, 'op-coins-1');
    const entries = t.world.ledger.length;
    const again = await t.call('economy.coins', args, 'op-coins-1');
    expect(again).toEqual(first);
    expect(player.coins).toBe(coins + 100);
    expect(t.world.ledger.length).toBe(entries);
  });

  it('records the actor as null when the key has no owner identity', async () => {
    const t = economyWorld();
    const player = offlinePlayer(t.world);
    const ownerless = { ...ACTOR, platform_id: null, social_id: null };
    await t.call('economy.coins', {
      ref: { platform_id: player.platform_id },
      amount: 1,
      reason: 'r',
      actor: ownerless,
    });
    expect(t.newest().actor).toBeNull();
  });
});

describe('economy.coins_all', () => {
  it('credits every player on record and writes one bulk row without player or balances', async () => {
    const t = economyWorld();
    const before = t.world.players.list.values().map((p) => p.coins);
    const result = await t.call('economy.coins_all', {
      amount: 20,
      reason: 'Event reward',
      target: 'all',
      actor: ACTOR,
    });
    expect(result).toEqual({ amount: 20, affected_count: t.world.players.size, target: 'all' });
    expect(t.world.players.list.values().map((p) => p.coins)).toEqual(before.map((c) => c + 20));
    expect(t.newest()).toMatchObject({
      player: null,
      actor: ACTOR_IDENTITY,
      asset: 'coins',
      amount: 20,
      balance_before: null,
      balance_after: null,
      scope: 'all',
      affected_count: t.world.players.size,
      source: 'api',
      reason: 'Event reward',
    });
  });

  it('credits only connected players with target online', async () => {
    const t = economyWorld();
    const offline = offlinePlayer(t.world);
    const coins = offline.coins;
    const online = onlinePlayer(t.world);
    const onlineCoins = online.coins;
    const result = await t.call('economy.coins_all', {
      amount: 5,
      reason: 'r',
      target: 'online',
      actor: ACTOR,
    });
    expect(result.affected_count).toBe(t.world.players.onlineCount());
    expect(offline.coins).toBe(coins);
    expect(online.coins).toBe(onlineCoins + 5);
    expect(t.newest()).toMatchObject({ scope: 'online', affected_count: t.world.players.onlineCount() });
  });

  it('stops a bulk debit at zero and counts only the balances that changed', async () => {
    const t = economyWorld({ players: 30 });
    const players = t.world.players.list.values();
    players.forEach((p, i) => (p.coins = i < 10 ? 0 : i < 20 ? 3 : 50));
    const result = await t.call('economy.coins_all', {
      amount: -5,
      reason: 'r',
      target: 'all',
      actor: ACTOR,
    });
    expect(result.affected_count).toBe(20);
    expect(players.map((p) => p.coins)).toEqual([...Array(20).fill(0), ...Array(10).fill(45)]);
  });

  it('shares a 5-second cooldown across targets and answers rate_limited with the seconds left', async () => {
    const t = economyWorld();
    await t.call('economy.coins_all', { amount: 1, reason: 'r', target: 'all', actor: ACTOR });
    t.advance(1_200);
    const coins = onlinePlayer(t.world).coins;
    const error = await failure(
      t.call('economy.coins_all', { amount: 1, reason: 'r', target: 'online', actor: ACTOR }),
    );
    expect(error.code).toBe('rate_limited');
    expect(error.details).toEqual({ retry_after_sec: 4 });
    expect(onlinePlayer(t.world).coins).toBe(coins);
    t.advance(BULK_COIN_COOLDOWN_MS - 1_200);
    await t.call('economy.coins_all', { amount: 1, reason: 'r', target: 'online', actor: ACTOR });
    expect(onlinePlayer(t.world).coins).toBe(coins + 1);
  });

  it('answers a retried op id with its first result even inside the cooldown', async () => {
    const t = economyWorld();
    const args = { amount: 7, reason: 'r', target: 'all' as const, actor: ACTOR };
    const first = await t.call('economy.coins_all', args, 'op-bulk-1');
    const coins = onlinePlayer(t.world).coins;
    expect(await t.call('economy.coins_all', args, 'op-bulk-1')).toEqual(first);
    expect(onlinePlayer(t.world).coins).toBe(coins);
  });

  it('ends the cooldown at once when cleared', async () => {
    const t = economyWorld();
    await t.call('economy.coins_all', { amount: 1, reason: 'r', target: 'all', actor: ACTOR });
    clearBulkCoinCooldown(t.world);
    await expect(
      t.call('economy.coins_all', { amount: 1, reason: 'r', target: 'all', actor: ACTOR }),
    ).resolves.toMatchObject({ amount: 1 });
  });

  it.each([
    ['2.0.29', false],
    ['2.0.30-beta.1', false],
    ['2.0.30', true],
  ])('on mod %s supports target online: %s, and never applies it to everyone', async (version, supported) => {
    const t = economyWorld({ modVersion: version });
    const offline = offlinePlayer(t.world);
    const coins = offline.coins;
    const entries = t.world.ledger.length;
    const call = t.call('economy.coins_all', { amount: 9, reason: 'r', target: 'online', actor: ACTOR });
    if (supported) {
      await call;
      expect(t.world.ledger.length).toBe(entries + 1);
    } else {
      expect((await failure(call)).code).toBe('unsupported');
      expect(t.world.ledger.length).toBe(entries);
    }
    expect(offline.coins).toBe(coins);
  });
});
