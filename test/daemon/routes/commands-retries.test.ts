import { describe, expect, it } from 'vitest';
import { eventually } from '../../../harness/stack.ts';
import { errorOf, historyLength, onlinePlayer, postCommand } from './commands-support.ts';
import { suiteStack } from '../../support/suite.ts';

describe('POST /v1/commands retried', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0 } });

  it('replays a command sent again with the same Idempotency-Key, running it once', async () => {
    const player = onlinePlayer(stack.sim!.world, 4);
    const money = player.money;
    const body = {
      verb: 'ChangeCurrencyBalance',
      args: ['Normal', '15'],
      subject: { player: player.platform_id },
    };
    const send = () =>
      stack.call('/v1/commands', {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'idempotency-key': 'cmd-credit-1' },
      });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json).toEqual(first.json);
    expect(player.money).toBe(money + 15);
  });

  it('applies once when the link drops after the game ran the command and the client retries', async () => {
    const player = onlinePlayer(stack.sim!.world, 5);
    const money = player.money;
    const entries = historyLength(stack);
    stack.sim!.faults.add({ op: 'commands.execute', kind: 'drop', afterApply: true, times: 1 });
    const body = {
      verb: 'ChangeCurrencyBalance',
      args: ['Gold', '7'],
      subject: { player: player.platform_id },
    };
    const send = () =>
      stack.call('/v1/commands', {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'idempotency-key': 'cmd-gold-1' },
      });
    const gold = player.gold;
    const dropped = await send();
    expect(dropped.status).toBe(503);
    // A client retries with the same key until the game is back.
    let retried = dropped;
    await eventually(async () => (retried = await send()).status !== 503);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ success: true });
    expect(player.gold).toBe(gold + 7);
    expect(player.money).toBe(money);
    expect(historyLength(stack)).toBe(entries + 1);
  });

  it('runs a command sent twice under one op id once, answering the first result', async () => {
    const player = onlinePlayer(stack.sim!.world, 3);
    const money = player.money;
    const args = {
      verb: 'ChangeCurrencyBalance',
      args: ['Normal', '40'],
      subject: { player: { platform_id: player.platform_id } },
      actor: { key_id: 'k', name: 'n', platform_id: null, social_id: null },
    };
    const first = await stack.daemon.link.call('commands.execute', args, { opId: 'op-cmd-1' });
    const second = await stack.daemon.link.call('commands.execute', args, { opId: 'op-cmd-1' });
    expect(second).toEqual(first);
    expect(player.money).toBe(money + 40);
  });
});

describe('POST /v1/commands while the game is starting', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 120_000, activityIntervalMs: 0 } });

  it('answers 503 with Retry-After until the console is ready, running nothing', async () => {
    const before = historyLength(stack);
    const res = await postCommand(stack, { verb: 'Online' });
    expect(res.status).toBe(503);
    expect(errorOf(res.json).code).toBe('server_unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(100);
    expect(historyLength(stack)).toBe(before);
    stack.sim!.console.loadCatalog();
    expect((await postCommand(stack, { verb: 'Online' })).status).toBe(200);
  });
});
