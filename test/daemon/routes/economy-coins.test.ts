import { beforeAll, describe, expect, it } from 'vitest';
import { clearBulkCoinCooldown } from '../../../mod-sim/handlers/economy.ts';
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

const NEVER_SEEN = '76561180000000123';

describe('POST /v1/players/{ref}/coins', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0 } });
  let key: string;
  const coins = (ref: string, body: unknown, headers: Record<string, string> = {}) =>
    post(stack, `/v1/players/${ref}/coins`, body, { ...bearer(key), ...headers });

  beforeAll(async () => {
    key = await ownedKey(stack, 'shop-bot');
  });

  it('credits a player and answers the signed amount, the new balance and the identity', async () => {
    const player = pick(stack.sim!.world, isOffline, 0);
    const before = player.coins;
    const res = await coins(player.platform_id, { amount: 120, reason: 'Tournament prize' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.json).toEqual({
      amount: 120,
      balance: before + 120,
      player: { platform_id: player.platform_id, social_id: player.social_id },
    });
  });

  it('records the write in the ledger with source api and the key owner as actor', async () => {
    const player = pick(stack.sim!.world, isOffline, 1);
    const before = player.coins;
    await coins(player.platform_id, { amount: -1, reason: 'Correction' });
    expect(await newestEntry(stack)).toMatchObject({
      player: { platform_id: player.platform_id },
      actor: OWNER,
      asset: 'coins',
      mode: 'delta',
      amount: -1,
      balance_before: before,
      balance_after: before - 1,
      scope: 'player',
      affected_count: null,
      source: 'api',
      reason: 'Correction',
      pack_name: null,
    });
  });

  it('debits by social ref', async () => {
    const player = pick(stack.sim!.world, (p) => p.social_id !== null && p.coins > 10);
    const res = await coins(`social:${player.social_id}`, { amount: -10, reason: 'Spent' });
    expect(res.status).toBe(200);
    expect((res.json as { balance: number }).balance).toBe(player.coins);
  });

  it('creates a never-seen platform id on a credit and answers 200', async () => {
    const res = await coins(NEVER_SEEN, { amount: 50, reason: 'Pre-registration gift' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      amount: 50,
      balance: 50,
      player: { platform_id: NEVER_SEEN, social_id: null },
    });
    const roster = await stack.call(`/v1/players?platform_id=${NEVER_SEEN}`);
    expect((roster.json as { data: Array<{ coins: number }> }).data[0]?.coins).toBe(50);
  });

  it('answers 404 for a debit to an unknown player and for an unlinked social id', async () => {
    const debit = await coins('76561180000000999', { amount: -5, reason: 'r' });
    expect(debit.status).toBe(404);
    expect(errorOf(debit.json).code).toBe('not_found');
    expect((await coins('social:99000000000000000003', { amount: 5, reason: 'r' })).status).toBe(404);
    expect(stack.sim!.world.players.byPlatformId('76561180000000999')).toBeUndefined();
  });

  it('answers 409 with the reason in the message for a debit above the balance, changing nothing', async () => {
    const player = pick(stack.sim!.world, isOffline, 2);
    player.coins = 30;
    const entries = stack.sim!.world.ledger.length;
    const res = await coins(player.platform_id, { amount: -31, reason: 'Too much' });
    expect(res.status).toBe(409);
    expect(errorOf(res.json)).toMatchObject({ code: 'conflict' });
    expect(errorOf(res.json).message).toMatch(/Insufficient coins.*has 30/);
    expect(player.coins).toBe(30);
    expect(stack.sim!.world.ledger.length).toBe(entries);
  });

  it.each([
    ['amount 0', { amount: 0, reason: 'r' }],
    ['a missing amount', { reason: 'r' }],
    ['a fractional amount', { amount: 1.5, reason: 'r' }],
    ['an amount as text', { amount: '5', reason: 'r' }],
    ['an amount past 32 bits', { amount: 2_147_483_648, reason: 'r' }],
    ['a missing reason', { amount: 5 }],
    ['an empty reason', { amount: 5, reason: '' }],
    ['a blank reason', { amount: 5, reason: '   ' }],
    ['a reason of 501 characters', { amount: 5, reason: 'x'.repeat(501) }],
    ['an unknown field', { amount: 5, reason: 'r', target: 'all' }],
  ])('answers 400 for %s, reaching nothing', async (_what, body) => {
    const player = pick(stack.sim!.world, isOffline, 3);
    const before = stack.sim!.opCounts.get('economy.coins') ?? 0;
    const res = await coins(player.platform_id, body);
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('validation_error');
    expect(stack.sim!.opCounts.get('economy.coins') ?? 0).toBe(before);
  });

  it('accepts a reason of exactly 500 characters, counted as characters not UTF-16 units', async () => {
    const player = pick(stack.sim!.world, isOffline, 3);
    expect((await coins(player.platform_id, { amount: 1, reason: '💰'.repeat(500) })).status).toBe(200);
  });

  it('answers 400 for a malformed platform id', async () => {
    expect((await coins('12345', { amount: 5, reason: 'r' })).status).toBe(400);
  });

  it('answers 403 insufficient_scope without economy:write', async () => {
    const reader = await ownedKey(stack, 'reader', 'economy:read,economy:write_all');
    const res = await post(
      stack,
      `/v1/players/${NEVER_SEEN}/coins`,
      { amount: 5, reason: 'r' },
      bearer(reader),
    );
    expect(res.status).toBe(403);
    expect(errorOf(res.json)).toMatchObject({
      code: 'insufficient_scope',
      details: { missing_scope: 'economy:write' },
    });
  });

  it('drops cached player reads so the caller reads its own write', async () => {
    const player = pick(stack.sim!.world, isOffline, 4);
    const read = async () =>
      (await stack.call(`/v1/players/${player.platform_id}`)).json as { coins: number };
    const before = (await read()).coins;
    await coins(player.platform_id, { amount: 9, reason: 'r' });
    expect((await read()).coins).toBe(before + 9);
  });
});

describe('POST /v1/economy/coins', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0 } });
  let key: string;
  const bulk = (body: unknown) => post(stack, '/v1/economy/coins', body, bearer(key));

  beforeAll(async () => {
    key = await ownedKey(stack, 'event-bot');
  });

  it('credits every player on record by default and writes one bulk ledger entry', async () => {
    clearBulkCoinCooldown(stack.sim!.world);
    const world = stack.sim!.world;
    const offline = pick(world, isOffline);
    const before = offline.coins;
    const res = await bulk({ amount: 15, reason: 'Anniversary' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ amount: 15, affected_count: world.players.size, target: 'all' });
    expect(offline.coins).toBe(before + 15);
    expect(await newestEntry(stack)).toMatchObject({
      player: null,
      actor: OWNER,
      asset: 'coins',
      balance_before: null,
      balance_after: null,
      scope: 'all',
      affected_count: world.players.size,
      source: 'api',
      reason: 'Anniversary',
    });
  });

  it('credits only connected players with target online', async () => {
    clearBulkCoinCooldown(stack.sim!.world);
    const world = stack.sim!.world;
    const offline = pick(world, isOffline);
    const online = pick(world, isOnline);
    const [off, on] = [offline.coins, online.coins];
    const res = await bulk({ amount: 4, reason: 'Online bonus', target: 'online' });
    expect(res.json).toEqual({ amount: 4, affected_count: world.players.onlineCount(), target: 'online' });
    expect([offline.coins, online.coins]).toEqual([off, on + 4]);
    expect((await newestEntry(stack)).scope).toBe('online');
  });

  it('answers a second call within 5 seconds with 429 and Retry-After, changing nothing', async () => {
    clearBulkCoinCooldown(stack.sim!.world);
    const player = pick(stack.sim!.world, isOnline);
    expect((await bulk({ amount: 1, reason: 'first' })).status).toBe(200);
    const coins = player.coins;
    const res = await bulk({ amount: 1, reason: 'second', target: 'online' });
    expect(res.status).toBe(429);
    expect(errorOf(res.json).code).toBe('rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);
    expect(player.coins).toBe(coins);
    expect((await newestEntry(stack)).reason).toBe('first');
  });

  it.each([
    ['an unknown target', { amount: 5, reason: 'r', target: 'everyone' }],
    ['amount 0', { amount: 0, reason: 'r' }],
    ['a missing reason', { amount: 5 }],
  ])('answers 400 for %s', async (_what, body) => {
    const res = await bulk(body);
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('validation_error');
  });

  it('answers 403 insufficient_scope with economy:write alone', async () => {
    const single = await ownedKey(stack, 'single', 'economy:write');
    const res = await post(stack, '/v1/economy/coins', { amount: 5, reason: 'r' }, bearer(single));
    expect(errorOf(res.json)).toMatchObject({
      code: 'insufficient_scope',
      details: { missing_scope: 'economy:write_all' },
    });
  });
});

describe('POST /v1/economy/coins on a game server older than 2.0.30', () => {
  const stack = suiteStack({ sim: { modVersion: '2.0.29', catalogDelayMs: 0, activityIntervalMs: 0 } });

  it('answers 404 for target online and never applies it to anyone', async () => {
    const world = stack.sim!.world;
    const before = world.players.list.values().map((p) => p.coins);
    const entries = world.ledger.length;
    const res = await post(stack, '/v1/economy/coins', { amount: 5, reason: 'r', target: 'online' });
    expect(res.status).toBe(404);
    expect(errorOf(res.json).code).toBe('not_found');
    expect(stack.sim!.opCounts.get('economy.coins_all') ?? 0).toBe(0);
    expect(world.players.list.values().map((p) => p.coins)).toEqual(before);
    expect(world.ledger.length).toBe(entries);
  });

  it('still applies target all', async () => {
    const res = await post(stack, '/v1/economy/coins', { amount: 5, reason: 'r', target: 'all' });
    expect(res.status).toBe(200);
  });
});
