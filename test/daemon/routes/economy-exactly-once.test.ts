/**
 * Money moves exactly once: a bot that retries with the same Idempotency-Key, after a timeout, a
 * dropped link or a daemon restart, never pays twice; and without the key, a retry is a second
 * payment (so these tests prove the key is what matters).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../daemon/daemon.ts';
import { silentLogger } from '../../../daemon/log/log.ts';
import { clearBulkCoinCooldown } from '../../../mod-sim/handlers/economy.ts';
import type { Player } from '../../../mod-sim/world/index.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';
import { isOffline, isOnline, ledger, pick, post } from './economy-support.ts';

const PIPELINE = { opDeadlines: { 'economy.coins': 300, 'economy.coins_all': 300 } };

describe('exactly-once economy writes', () => {
  let stack: Stack;
  let next = 0;
  /** A player no other test of this file touches. */
  const fresh = (test: (p: Player) => boolean = isOffline) => pick(stack.sim!.world, test, next++);
  const credit = (player: Player, reason: string, key?: string) =>
    post(
      stack,
      `/v1/players/${player.platform_id}/coins`,
      { amount: 100, reason },
      key ? { 'idempotency-key': key } : {},
    );
  /** The player's ledger entries with this reason, read through the API. */
  const entriesFor = async (player: Player, reason: string) =>
    (await ledger(stack, { platform_id: player.platform_id, limit: '100' })).data.filter(
      (e) => e.reason === reason,
    );

  /** Closes the daemon and starts a new one on the same data dir and mod-link port; the game redials. */
  async function restartDaemon(): Promise<void> {
    const modPort = stack.daemon.modLink.port;
    await stack.daemon.close();
    stack.daemon = await startDaemon({
      dataDir: stack.data.dir,
      listen: { host: '127.0.0.1', port: 0 },
      modListen: { host: '127.0.0.1', port: modPort },
      log: silentLogger,
      pipeline: PIPELINE,
    });
    await eventually(() => stack.daemon.link.peer !== null);
  }

  beforeAll(async () => {
    stack = await startStack({
      sim: { catalogDelayMs: 0, activityIntervalMs: 0 },
      daemon: { pipeline: PIPELINE },
    });
  });
  afterAll(() => stack.close());

  it('moves the balance once for 10 concurrent requests with one Idempotency-Key', async () => {
    const player = fresh();
    const coins = player.coins;
    const before = stack.sim!.opCounts.get('economy.coins') ?? 0;
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => credit(player, 'race', 'coins-race-1')),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const res of responses) expect(res.json).toEqual(responses[0]!.json);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(player.coins).toBe(coins + 100);
    expect(stack.sim!.opCounts.get('economy.coins')).toBe(before + 1);
    expect(await entriesFor(player, 'race')).toHaveLength(1);
  });

  it('credits 10 times for 10 concurrent requests without a key', async () => {
    const player = fresh();
    const coins = player.coins;
    const responses = await Promise.all(Array.from({ length: 10 }, () => credit(player, 'race without key')));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(player.coins).toBe(coins + 1_000);
    expect(await entriesFor(player, 'race without key')).toHaveLength(10);
  });

  it('moves the balance once when a credit times out, the daemon restarts and the bot retries with the key', async () => {
    const player = fresh();
    const coins = player.coins;
    stack.sim!.faults.add({ op: 'economy.coins', kind: 'hang', afterApply: true, times: 1 });
    const timedOut = await credit(player, 'restart with key', 'coins-restart-1');
    expect(timedOut.status).toBe(504);
    expect(player.coins).toBe(coins + 100);
    await restartDaemon();
    const retry = await credit(player, 'restart with key', 'coins-restart-1');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.json).toMatchObject({ amount: 100, balance: coins + 100 });
    expect(player.coins).toBe(coins + 100);
    expect(await entriesFor(player, 'restart with key')).toHaveLength(1);
    const again = await credit(player, 'restart with key', 'coins-restart-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(player.coins).toBe(coins + 100);
  });

  it('credits twice when the same timeout and restart happen without a key', async () => {
    const player = fresh();
    const coins = player.coins;
    stack.sim!.faults.add({ op: 'economy.coins', kind: 'hang', afterApply: true, times: 1 });
    expect((await credit(player, 'restart without key')).status).toBe(504);
    await restartDaemon();
    expect((await credit(player, 'restart without key')).status).toBe(200);
    expect(player.coins).toBe(coins + 200);
    expect(await entriesFor(player, 'restart without key')).toHaveLength(2);
  });

  it('reports mutation_applied on the 504 of a credit the game committed', async () => {
    const player = fresh();
    stack.sim!.faults.add({ op: 'economy.coins', kind: 'hang', afterApply: true, times: 1 });
    const res = await credit(player, 'applied', 'coins-applied-1');
    expect(res.status).toBe(504);
    expect((res.json as { error: { details?: unknown } }).error.details).toEqual({ mutation_applied: true });
  });

  it('changes cash once when the link drops after the game applied it and the bot retries with the key', async () => {
    const player = fresh(isOnline);
    const money = player.money;
    stack.sim!.faults.add({ op: 'economy.currency', kind: 'drop', afterApply: true, times: 1 });
    const send = () =>
      post(
        stack,
        `/v1/players/${player.platform_id}/currency`,
        { currency: 'cash', amount: 300, reason: 'drop with key' },
        { 'idempotency-key': 'cash-drop-1' },
      );
    expect((await send()).status).toBe(503);
    let retried = await send();
    await eventually(async () => (retried = await send()).status !== 503);
    expect(retried.status).toBe(200);
    expect(player.money).toBe(money + 300);
    const rows = (await ledger(stack, { platform_id: player.platform_id, asset: 'cash' })).data;
    expect(rows.filter((e) => e.reason === 'drop with key')).toHaveLength(1);
  });

  it('answers a retried bulk credit with its first result inside the cooldown, paying once', async () => {
    clearBulkCoinCooldown(stack.sim!.world);
    const player = fresh();
    const coins = player.coins;
    stack.sim!.faults.add({ op: 'economy.coins_all', kind: 'hang', afterApply: true, times: 1 });
    const send = () =>
      post(stack, '/v1/economy/coins', { amount: 2, reason: 'bulk retry' }, { 'idempotency-key': 'bulk-1' });
    expect((await send()).status).toBe(504);
    const retry = await send();
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({ amount: 2, target: 'all' });
    expect(player.coins).toBe(coins + 2);
    const rows = (await ledger(stack, { scope: 'all', source: 'api', limit: '10' })).data;
    expect(rows.filter((e) => e.reason === 'bulk retry')).toHaveLength(1);
  });
});
