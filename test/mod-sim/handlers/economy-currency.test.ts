import { describe, expect, it } from 'vitest';
import { CommandConsole } from '../../../mod-sim/console/index.ts';
import type { World } from '../../../mod-sim/world/index.ts';
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

const newestCommand = (world: World) => world.commands.history.bySeq(world.commands.history.length - 1);

const currencyArgs = (platformId: string, over: Record<string, unknown> = {}) => ({
  ref: { platform_id: platformId },
  currency: 'cash' as const,
  mode: 'delta' as const,
  amount: 500,
  reason: 'Compensation',
  actor: ACTOR,
  ...over,
});

describe('economy.currency', () => {
  it('changes cash through the console, in the command history under the actor and in the ledger', async () => {
    const t = economyWorld();
    const player = onlinePlayer(t.world);
    const { money, gold } = player;
    const result = await t.call('economy.currency', currencyArgs(player.platform_id));
    expect(result).toEqual({
      player: player.refs.identity,
      currency: 'cash',
      mode: 'delta',
      amount: 500,
      balance_before: { cash: money, gold },
      balance: { cash: money + 500, gold },
      transaction_id: t.newest().id,
    });
    expect(newestCommand(t.world)).toMatchObject({
      command: `#ChangeCurrencyBalance ${player.platform_id} Normal 500`,
      actor: ACTOR_IDENTITY,
    });
    expect(t.newest()).toMatchObject({
      player: player.refs.identity,
      actor: ACTOR_IDENTITY,
      asset: 'cash',
      mode: 'delta',
      amount: 500,
      balance_before: money,
      balance_after: money + 500,
      scope: 'player',
      source: 'api',
      reason: 'Compensation',
    });
  });

  it('sets gold with SetCurrencyBalance and lets a delta debit go below zero', async () => {
    const t = economyWorld();
    const player = linkedPlayer(t.world);
    const set = await t.call('economy.currency', {
      ...currencyArgs(player.platform_id, { currency: 'gold', mode: 'set', amount: 0 }),
      ref: { social_id: player.social_id! },
    });
    expect(set.balance?.gold).toBe(0);
    expect(newestCommand(t.world).command).toBe(`#SetCurrencyBalance ${player.platform_id} Gold 0`);
    expect(t.newest()).toMatchObject({ mode: 'set', amount: 0, balance_after: 0 });
    const debit = await t.call(
      'economy.currency',
      currencyArgs(player.platform_id, { currency: 'gold', amount: -25 }),
    );
    expect(debit.balance?.gold).toBe(-25);
  });

  it('answers conflict for an offline player and for a well-formed platform id nobody has', async () => {
    const t = economyWorld();
    const entries = t.world.ledger.length;
    const history = t.world.commands.history.length;
    const offline = offlinePlayer(t.world);
    const money = offline.money;
    expect((await failure(t.call('economy.currency', currencyArgs(offline.platform_id)))).code).toBe(
      'conflict',
    );
    expect((await failure(t.call('economy.currency', currencyArgs(strangerId(t.world))))).code).toBe(
      'conflict',
    );
    expect(offline.money).toBe(money);
    expect(t.world.ledger.length).toBe(entries);
    expect(t.world.commands.history.length).toBe(history);
  });

  it('answers not_found for a social id linked to nobody', async () => {
    const t = economyWorld();
    const args = { ...currencyArgs('0'), ref: { social_id: '99000000000000000002' } };
    expect((await failure(t.call('economy.currency', args))).code).toBe('not_found');
  });

  it('answers a null balance and writes null ledger balances when the player leaves mid-change', async () => {
    const t = economyWorld();
    const player = onlinePlayer(t.world, 1);
    const money = player.money;
    t.console.leaveMidChange(player.platform_id);
    const result = await t.call('economy.currency', currencyArgs(player.platform_id, { amount: 75 }));
    expect(result.balance).toBeNull();
    expect(result.balance_before.cash).toBe(money);
    expect(player.money).toBe(money + 75);
    expect(player.online).toBe(false);
    expect(t.newest()).toMatchObject({ balance_before: null, balance_after: null, amount: 75 });
    expect(t.newest().id).toBe(result.transaction_id);
  });

  it('answers invalid with the game’s words when the console refuses the command', async () => {
    const t = economyWorld();
    const player = onlinePlayer(t.world);
    player.money = 2_147_483_000;
    const error = await failure(
      t.call('economy.currency', currencyArgs(player.platform_id, { amount: 1_000 })),
    );
    expect(error.code).toBe('invalid');
    expect(error.message).toContain('overflow');
  });

  it('applies an op id once and answers a repeat with the first result', async () => {
    const t = economyWorld();
    const player = onlinePlayer(t.world);
    const money = player.money;
    const first = await t.call('economy.currency', currencyArgs(player.platform_id), 'op-cash-1');
    const history = t.world.commands.history.length;
    expect(await t.call('economy.currency', currencyArgs(player.platform_id), 'op-cash-1')).toEqual(first);
    expect(player.money).toBe(money + 500);
    expect(t.world.commands.history.length).toBe(history);
  });
});

describe('economy.currency_all', () => {
  const bulkArgs = (over: Record<string, unknown> = {}) => ({
    currency: 'gold' as const,
    mode: 'delta' as const,
    amount: 10,
    reason: 'Happy hour',
    target: 'all' as const,
    actor: ACTOR,
    ...over,
  });

  it('changes everyone on record, offline players included, with one bulk ledger row and no count', async () => {
    const t = economyWorld();
    const golds = t.world.players.list.values().map((p) => p.gold);
    const result = await t.call('economy.currency_all', bulkArgs());
    expect(result).toEqual({
      currency: 'gold',
      mode: 'delta',
      amount: 10,
      target: 'all',
      affected_count: null,
      transaction_id: t.newest().id,
    });
    expect(t.world.players.list.values().map((p) => p.gold)).toEqual(golds.map((g) => g + 10));
    expect(newestCommand(t.world)).toMatchObject({
      command: '#ChangeCurrencyBalanceForAll Gold 10 All',
      actor: ACTOR_IDENTITY,
    });
    expect(t.newest()).toMatchObject({
      player: null,
      balance_before: null,
      balance_after: null,
      scope: 'all',
      affected_count: null,
      source: 'api',
      reason: 'Happy hour',
    });
  });

  it('sets only connected players with target online', async () => {
    const t = economyWorld();
    const offline = offlinePlayer(t.world);
    const cash = offline.money;
    await t.call(
      'economy.currency_all',
      bulkArgs({ currency: 'cash', mode: 'set', amount: 1_000, target: 'online' }),
    );
    for (const player of t.world.players.online()) expect(player.money).toBe(1_000);
    expect(offline.money).toBe(cash);
    expect(newestCommand(t.world).command).toBe('#SetCurrencyBalanceForAll Normal 1000 Online');
    expect(t.newest()).toMatchObject({ scope: 'online', mode: 'set', asset: 'cash' });
  });

  it('answers conflict when nobody is connected to relay the change', async () => {
    const t = economyWorld({ onlineShare: 0 });
    const entries = t.world.ledger.length;
    const error = await failure(t.call('economy.currency_all', bulkArgs()));
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('relay');
    expect(t.world.ledger.length).toBe(entries);
  });
});

describe('currency commands from other paths', () => {
  it('writes a ledger row for a panel command, with the command as its reason', () => {
    const t = economyWorld();
    const admin = t.world.players.list.values().find((p) => p.is_admin)!;
    const player = onlinePlayer(t.world);
    const outcome = t.console.run(`#ChangeCurrencyBalance ${player.platform_id} Gold 3`, {
      actor: { key_id: 'panel', name: admin.char_name, platform_id: admin.platform_id, social_id: null },
      source: 'panel',
      rank: 4,
    });
    expect(outcome.ledger).toHaveLength(1);
    expect(t.newest()).toMatchObject({
      source: 'panel',
      actor: { platform_id: admin.platform_id, social_id: null },
      reason: `#ChangeCurrencyBalance ${player.platform_id} Gold 3`,
      asset: 'gold',
      amount: 3,
    });
  });

  it('writes no ledger row for a currency command the game refuses', () => {
    const t = economyWorld();
    const blocked = new CommandConsole(t.world, {
      catalogDelayMs: 0,
      blockedVerbs: ['ChangeCurrencyBalance'],
    });
    const player = onlinePlayer(t.world);
    const money = player.money;
    const outcome = blocked.execute({
      verb: 'ChangeCurrencyBalance',
      args: ['Normal', '5'],
      target: { player: { platform_id: player.platform_id } },
      actor: ACTOR,
      source: 'api',
      rank: 4,
    });
    expect(outcome.success).toBe(false);
    expect(outcome.ledger).toEqual([]);
    expect(player.money).toBe(money);
  });

  it('writes no ledger row for a command that moves no money', () => {
    const t = economyWorld();
    const entries = t.world.ledger.length;
    t.console.run('#Online', {
      actor: { key_id: 'task', name: 'Task', platform_id: null, social_id: null },
      source: 'task',
      rank: 4,
    });
    expect(t.world.ledger.length).toBe(entries);
  });
});
