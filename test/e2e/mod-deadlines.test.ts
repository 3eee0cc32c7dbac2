/**
 * docs/errors.md#from-the-mod-link: an op deadline passed is 504 gateway_timeout. A game server
 * that does not answer in time is a 504 every time, never a 502: a hung simulator never answers
 * (not even with an error once its own deadline passes, which could race the daemon's timer), and
 * a mod that gives up reports it with the op error `timeout` (PROTOCOL §6.3), which the daemon
 * answers exactly as its own deadline passing. Real HTTP listener, real mod link.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatHostPort } from '../../daemon/host-port.ts';
import { createLogger } from '../../daemon/log/log.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../../daemon/store/mod-credentials.ts';
import { startModBridge, type ModBridge } from '../../bridge/bridge.ts';
import { OpError, type OpResult } from '../../protocol/ops/index.ts';
import { errorOf, http } from '../support/http.ts';
import { startStack, type Stack } from '../../harness/stack.ts';

const DEADLINE_MS = 300;
const deadlines = { opDeadlines: { 'players.unmute': DEADLINE_MS } };

describe('a hung simulator', () => {
  let stack: Stack;
  let player: string;
  const daemonLog: string[] = [];
  const unmute = () => http(stack, `/v1/players/${player}/mute`, { method: 'DELETE' });

  beforeAll(async () => {
    const log = createLogger({ level: 'debug', write: (line) => void daemonLog.push(line) });
    stack = await startStack({ daemon: { log, pipeline: deadlines } });
    player = stack.sim!.world.players.list.itemAt(0).platform_id;
  });
  afterEach(() => stack.sim!.faults.clear());
  afterAll(() => stack.close());

  it('answers 504 to every call, and never sends a late answer', async () => {
    stack.sim!.faults.add({ op: 'players.unmute', kind: 'hang', times: 2 });
    const first = await unmute();
    // The second call takes a whole deadline more: by its 504 the simulator's own deadline for the
    // first call (a transit time after the daemon's) is long past, so any answer would be in.
    const second = await unmute();
    expect([first.status, second.status]).toEqual([504, 504]);
    expect([errorOf(first.json).code, errorOf(second.json).code]).toEqual([
      'gateway_timeout',
      'gateway_timeout',
    ]);
    expect(daemonLog.filter((line) => line.includes('dropped a response with no pending call'))).toEqual([]);
    expect((await unmute()).status).toBe(200);
  });

  it('answers 504 when the simulator is slower than the deadline', async () => {
    stack.sim!.faults.add({ op: 'players.unmute', kind: 'delay', ms: DEADLINE_MS * 10, times: 1 });
    const res = await unmute();
    expect([res.status, errorOf(res.json).code]).toEqual([504, 'gateway_timeout']);
  });
});

describe('a mod that reports its own timeout', () => {
  let stack: Stack;
  let bridge: ModBridge;
  let applyFirst = false;
  const unmute = () => http(stack, '/v1/players/76561190000000001/mute', { method: 'DELETE' });

  beforeAll(async () => {
    stack = await startStack({ sim: false, daemon: { pipeline: deadlines } });
    const credentials = await (await DataDir.open(stack.data.dir)).read(modCredentialsFile);
    bridge = startModBridge({
      url: `ws://${formatHostPort(stack.daemon.modLink)}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      modVersion: '2.1.0',
      handlers: {
        // The game's own console call has a shorter timeout than the request's deadline.
        'players.unmute': async (_args, ctx): Promise<OpResult<'players.unmute'>> => {
          if (applyFirst) ctx.applied();
          await sleep(10);
          throw new OpError('timeout', 'the game console did not answer in time');
        },
      },
    });
    await new Promise((resolve) => bridge.once('connect', resolve));
  });
  afterAll(async () => {
    await bridge.close();
    await stack.close();
  });

  it('answers 504 gateway_timeout, not 502', async () => {
    applyFirst = false;
    const res = await unmute();
    expect([res.status, errorOf(res.json).code]).toEqual([504, 'gateway_timeout']);
    expect(errorOf(res.json).details).toBeUndefined();
  });

  it('says the change applied when the mod reported it before giving up', async () => {
    applyFirst = true;
    const res = await unmute();
    expect([res.status, errorOf(res.json).code]).toEqual([504, 'gateway_timeout']);
    expect(errorOf(res.json).details).toEqual({ mutation_applied: true, action: 'unmute' });
  });
});
