import { beforeAll, describe, expect, it } from 'vitest';
import type { Player } from '../../../mod-sim/world/index.ts';
import {
  OWNER,
  bearer,
  errorOf,
  isOffline,
  isOnline,
  newestEntry,
  ownedKey,
  pick,
  post,
} from './economy-support.ts';
import { suiteStack } from '../../support/suite.ts';

type CurrencyChange = {
  player: { platform_id: string; social_id: string | null };
  balance_before: { cash: number; gold: number };
  balance: { cash: number; gold: number } | null;
  transaction_id: string;
};

describe('POST /v1/players/{ref}/currency', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0 } });
  let key: string;
  const currency = (ref: string, body: unknown) =>
    post(stack, `/v1/players/${ref}/currency`, body, bearer(key));
  const history = async () =>
    (await stack.call('/v1/commands/history?limit=1')).json as {
      data: Array<{ command: string; actor: unknown }>;
    };

  beforeAll(async () => {
    key = await ownedKey(stack, 'bank-bot');
  });

  it('credits cash by default as a delta and answers both balances and the transaction id', async () => {
    const player = pick(stack.sim!.world, isOnline, 0);
    const { money, gold } = player;
    const res = await currency(player.platform_id, { currency: 'cash', amount: 700, reason: 'Refund' });
    expect(res.status).toBe(200);
    const body = res.json as CurrencyChange;
    expect(body).toEqual({
      player: { platform_id: player.platform_id, social_id: player.social_id },
      currency: 'cash',
      mode: 'delta',
      amount: 700,
      balance_before: { cash: money, gold },
      balance: { cash: money + 700, gold },
      transaction_id: body.transaction_id,
    });
    expect(body.transaction_id).toMatch(/^[1-9][0-9]*$/);
    expect((await newestEntry(stack)).id).toBe(body.transaction_id);
  });

  it('runs the game command, which the command history shows under the key owner', async () => {
    const player = pick(stack.sim!.world, isOnline, 1);
    await currency(player.platform_id, { currency: 'gold', amount: 3, reason: 'Quest' });
    const [entry] = (await history()).data;
    expect(entry).toMatchObject({
      command: `#ChangeCurrencyBalance ${player.platform_id} Gold 3`,
      actor: OWNER,
    });
  });

  it('records the write in the ledger with source api, the key owner and the reason', async () => {
    const player = pick(stack.sim!.world, isOnline, 2);
    const gold = player.gold;
    await currency(player.platform_id, { currency: 'gold', mode: 'set', amount: 42, reason: 'Reset' });
    expect(await newestEntry(stack)).toMatchObject({
      player: { platform_id: player.platform_id },
      actor: OWNER,
      asset: 'gold',
      mode: 'set',
      amount: 42,
      balance_before: gold,
      balance_after: 42,
      scope: 'player',
      source: 'api',
      reason: 'Reset',
    });
  });

  it('lets a debit take the balance below zero and still answers 200', async () => {
    const player = pick(stack.sim!.world, isOnline, 3);
    const res = await currency(player.platform_id, {
      currency: 'gold',
      amount: -(player.gold + 5),
      reason: 'r',
    });
    expect(res.status).toBe(200);
    expect((res.json as CurrencyChange).balance?.gold).toBe(-5);
  });

  it('resolves a linked social ref', async () => {
    const player = pick(stack.sim!.world, (p) => p.online && p.social_id !== null);
    const res = await currency(`social:${player.social_id}`, { currency: 'cash', amount: 1, reason: 'r' });
    expect((res.json as CurrencyChange).player.platform_id).toBe(player.platform_id);
  });

  it('answers 409 conflict for an offline player, changing nothing', async () => {
    const player = pick(stack.sim!.world, isOffline);
    const money = player.money;
    const res = await currency(player.platform_id, { currency: 'cash', amount: 10, reason: 'r' });
    expect(res.status).toBe(409);
    expect(errorOf(res.json).code).toBe('conflict');
    expect(player.money).toBe(money);
  });

  it.each(['abc', '7656119', '765611900000000011', 'social:123', 'social:', '76561190000000001x'])(
    'answers 404 (not 400) for the malformed ref %s, reaching nothing',
    async (ref) => {
      const before = stack.sim!.opCounts.get('economy.currency') ?? 0;
      const res = await currency(ref, { currency: 'cash', amount: 10, reason: 'r' });
      expect(res.status).toBe(404);
      expect(errorOf(res.json).code).toBe('not_found');
      expect(stack.sim!.opCounts.get('economy.currency') ?? 0).toBe(before);
    },
  );

  it('answers 404 for a social id linked to nobody', async () => {
    const res = await currency('social:99000000000000000004', { currency: 'cash', amount: 10, reason: 'r' });
    expect(res.status).toBe(404);
  });

  it.each([
    ['amount 0 in delta mode', { currency: 'cash', amount: 0, reason: 'r' }],
    ['amount 0 in explicit delta mode', { currency: 'cash', mode: 'delta', amount: 0, reason: 'r' }],
    ['a negative amount in set mode', { currency: 'cash', mode: 'set', amount: -1, reason: 'r' }],
    ['an empty reason', { currency: 'cash', amount: 5, reason: '' }],
    ['a missing reason', { currency: 'cash', amount: 5 }],
    ['a bad currency', { currency: 'coins', amount: 5, reason: 'r' }],
    ['a missing currency', { amount: 5, reason: 'r' }],
    ['a bad mode', { currency: 'gold', mode: 'add', amount: 5, reason: 'r' }],
    ['a fractional amount', { currency: 'gold', amount: 0.5, reason: 'r' }],
  ])('answers 400 for %s', async (_what, body) => {
    const player = pick(stack.sim!.world, isOnline, 4);
    const res = await currency(player.platform_id, body);
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('validation_error');
  });

  it('accepts amount 0 in set mode (zeroing the balance)', async () => {
    const player = pick(stack.sim!.world, isOnline, 4);
    const res = await currency(player.platform_id, { currency: 'cash', mode: 'set', amount: 0, reason: 'r' });
    expect((res.json as CurrencyChange).balance?.cash).toBe(0);
  });

  it('answers balance null when the player leaves mid-change, though the change applied', async () => {
    const player: Player = pick(stack.sim!.world, isOnline, 5);
    const money = player.money;
    stack.sim!.console.leaveMidChange(player.platform_id);
    const res = await currency(player.platform_id, { currency: 'cash', amount: 250, reason: 'Leaving' });
    expect(res.status).toBe(200);
    const body = res.json as CurrencyChange;
    expect(body.balance).toBeNull();
    expect(body.balance_before.cash).toBe(money);
    expect(player.money).toBe(money + 250);
    expect(await newestEntry(stack)).toMatchObject({
      id: body.transaction_id,
      player: { platform_id: player.platform_id },
      balance_before: null,
      balance_after: null,
      reason: 'Leaving',
    });
  });

  it('records a currency change made through POST /v1/commands, with the command as its reason', async () => {
    const player = pick(stack.sim!.world, isOnline, 6);
    const money = player.money;
    const res = await post(
      stack,
      '/v1/commands',
      { verb: 'ChangeCurrencyBalance', args: ['Normal', '15'], subject: { player: player.platform_id } },
      bearer(key),
    );
    expect(res.status).toBe(200);
    expect(await newestEntry(stack)).toMatchObject({
      player: { platform_id: player.platform_id },
      actor: OWNER,
      asset: 'cash',
      amount: 15,
      balance_before: money,
      balance_after: money + 15,
      source: 'api',
      reason: `#ChangeCurrencyBalance ${player.platform_id} Normal 15`,
    });
  });

  it('drops cached squad reads so member balances show the change', async () => {
    const world = stack.sim!.world;
    const player = pick(world, (p) => p.online && p.squad !== null);
    const path = `/v1/squads/${player.squad!.id}/members`;
    const goldOf = async () =>
      ((await stack.call(path)).json as { data: Array<{ platform_id: string; gold: number }> }).data.find(
        (m) => m.platform_id === player.platform_id,
      )?.gold;
    const before = await goldOf();
    await currency(player.platform_id, { currency: 'gold', amount: 11, reason: 'r' });
    expect(await goldOf()).toBe((before as number) + 11);
  });
});

describe('POST /v1/economy/currency', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0 } });
  let key: string;
  const bulk = (body: unknown) => post(stack, '/v1/economy/currency', body, bearer(key));

  beforeAll(async () => {
    key = await ownedKey(stack, 'bulk-bank-bot');
  });

  it('changes every player in the database by default and answers affected_count null', async () => {
    const world = stack.sim!.world;
    const offline = pick(world, isOffline);
    const gold = offline.gold;
    const res = await bulk({ currency: 'gold', amount: 5, reason: 'Server birthday' });
    expect(res.status).toBe(200);
    const body = res.json as { transaction_id: string };
    expect(res.json).toEqual({
      currency: 'gold',
      mode: 'delta',
      amount: 5,
      target: 'all',
      affected_count: null,
      transaction_id: body.transaction_id,
    });
    expect(offline.gold).toBe(gold + 5);
    expect(await newestEntry(stack)).toMatchObject({
      id: body.transaction_id,
      player: null,
      actor: OWNER,
      asset: 'gold',
      balance_before: null,
      balance_after: null,
      scope: 'all',
      affected_count: null,
      source: 'api',
      reason: 'Server birthday',
    });
  });

  it('sets only connected players with target online', async () => {
    const world = stack.sim!.world;
    const offline = pick(world, isOffline);
    const cash = offline.money;
    const res = await bulk({ currency: 'cash', mode: 'set', amount: 100, target: 'online', reason: 'r' });
    expect(res.status).toBe(200);
    for (const player of world.players.online()) expect(player.money).toBe(100);
    expect(offline.money).toBe(cash);
  });

  it.each([
    ['an unknown target', { currency: 'cash', amount: 5, reason: 'r', target: 'squad' }],
    ['amount 0 in delta mode', { currency: 'cash', amount: 0, reason: 'r' }],
    ['a negative set', { currency: 'gold', mode: 'set', amount: -3, reason: 'r' }],
  ])('answers 400 for %s', async (_what, body) => {
    expect((await bulk(body)).status).toBe(400);
  });

  it('answers 409 conflict when nobody is connected to relay the change', async () => {
    const world = stack.sim!.world;
    const online = [...world.players.online()];
    const lives = online.map((p) => p.live!);
    for (const player of online) world.players.setOnline(player, null);
    try {
      const res = await bulk({ currency: 'cash', amount: 5, reason: 'r' });
      expect(res.status).toBe(409);
      expect(errorOf(res.json).code).toBe('conflict');
    } finally {
      online.forEach((player, i) => world.players.setOnline(player, lives[i]!));
    }
  });

  it('answers 403 insufficient_scope with currency:write alone', async () => {
    const single = await ownedKey(stack, 'single-bank', 'currency:write');
    const res = await post(
      stack,
      '/v1/economy/currency',
      { currency: 'cash', amount: 5, reason: 'r' },
      bearer(single),
    );
    expect(errorOf(res.json)).toMatchObject({
      code: 'insufficient_scope',
      details: { missing_scope: 'currency:write_all' },
    });
  });
});
