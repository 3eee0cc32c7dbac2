/**
 * docs/players.md#a-503-or-504-after-a-write-that-applied: a 503/504 on a moderation write may still
 * mean the write applied; such a response carries error.details.mutation_applied = true. Proved with the simulator's after-apply faults.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Player } from '../../../mod-sim/world/index.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';

type Failure = { error: { code: string; details?: Record<string, unknown> } };

describe('a moderation write that applied before the link failed', () => {
  let stack: Stack;
  let clean: Player[];
  const send = (method: string, path: string, body?: unknown) =>
    stack.call(path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });

  beforeAll(async () => {
    stack = await startStack({
      daemon: { pipeline: { opDeadlines: { 'players.ban': 300, 'players.unmute': 300 } } },
    });
    clean = stack
      .sim!.world.players.list.values()
      .filter((p) => !p.moderation.ban.banned && !p.moderation.mute.muted);
  });
  afterEach(async () => {
    stack.sim!.faults.clear();
    await stack.sim!.connected();
  });
  afterAll(() => stack.close());

  it('answers 504 with mutation_applied and the action, and a GET shows the change', async () => {
    const ref = (clean[0] as Player).platform_id;
    stack.sim!.faults.add({ op: 'players.ban', kind: 'hang', afterApply: true, times: 1 });
    const res = await send('POST', `/v1/players/${ref}/ban`, { permanent: true });
    expect(res.status).toBe(504);
    expect((res.json as Failure).error).toMatchObject({
      code: 'gateway_timeout',
      details: { mutation_applied: true, action: 'ban' },
    });
    const state = (await send('GET', `/v1/players/${ref}/moderation`)).json as { ban: { banned: boolean } };
    expect(state.ban.banned).toBe(true);
  });

  it('answers 503 with mutation_applied when the link drops after the change, and a retry recovers', async () => {
    const ref = (clean[1] as Player).platform_id;
    stack.sim!.faults.add({ op: 'players.mute', kind: 'drop', afterApply: true, times: 1 });
    const res = await send('POST', `/v1/players/${ref}/mute`, { duration: 2 });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect((res.json as Failure).error.details).toEqual({ mutation_applied: true, action: 'mute' });
    await eventually(async () => (await send('GET', `/v1/players/${ref}/moderation`)).status === 200);
    const retry = await send('POST', `/v1/players/${ref}/mute`, { duration: 2 });
    expect(retry.status).toBe(200);
    expect((retry.json as { mute: { muted: boolean } }).mute.muted).toBe(true);
  });

  it('says nothing about applying when the game never reported the change', async () => {
    const ref = (clean[2] as Player).platform_id;
    stack.sim!.faults.add({ op: 'players.ban', kind: 'hang', times: 1 });
    const res = await send('POST', `/v1/players/${ref}/ban`, { permanent: true });
    expect(res.status).toBe(504);
    expect((res.json as Failure).error.details).toBeUndefined();
  });
});
