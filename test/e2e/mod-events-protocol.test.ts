/**
 * PROTOCOL §9 between real processes: a `modgate serve` announces events in its `ready`, answers
 * the golden burst (frame 8) with the golden acks (frame 9), one per body in body order, and a
 * resent body after a redial with that body's own highest seq, storing nothing twice; and the
 * simulator (`modgate sim`, the reference bridge) sends its game events only to such a daemon and
 * gets exactly one ack per body it sent, naming that body's last seq, as its debug log shows.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../../daemon/store/mod-credentials.ts';
import type { EventsAckFrame, EventsFrame, FrameBody } from '../../protocol/frames.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { logLines, startServe, startSim, stop, type Served } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';
import { nextBodies, rawModSession, runCleanups, type Identities } from '../protocol/support.ts';

interface GoldenFrame {
  direction: string;
  bodies: FrameBody[];
}
const golden = JSON.parse(
  readFileSync(new URL('../../protocol/vectors/golden.json', import.meta.url), 'utf8'),
) as { frames: GoldenFrame[] };
const burstAt = golden.frames.findIndex((frame) => frame.bodies.some((body) => body.t === 'events'));
const burst = (golden.frames[burstAt] as GoldenFrame).bodies as EventsFrame[];
const burstAcks = (golden.frames[burstAt + 1] as GoldenFrame).bodies;

describe('game events between a real serve and its mods (PROTOCOL §9)', () => {
  let data: TestDataDir;
  let served: Served;
  let key: string;
  let ids: Identities;

  const gameEvents = async (): Promise<Array<{ type: string }>> => {
    const res = await fetch(`http://127.0.0.1:${served.apiPort}/v1/events?after=0&limit=1000`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const page = (await res.json()) as { data: Array<{ type: string }> };
    return page.data.filter((event) => !event.type.startsWith('mod.'));
  };
  /** A raw mod's acks, skipping pings, until it has `count` of them. */
  const acks = async (mod: Parameters<typeof nextBodies>[0], count: number): Promise<EventsAckFrame[]> => {
    const received: EventsAckFrame[] = [];
    while (received.length < count) {
      for (const body of await nextBodies(mod)) if (body.t === 'events_ack') received.push(body);
    }
    return received;
  };

  beforeAll(async () => {
    data = await makeDataDir();
    key = (await data.createKey('--name', 'watcher')).key;
    const credentials = await (await DataDir.open(data.dir)).read(modCredentialsFile);
    ids = {
      mod: credentials.identity,
      daemon: { publicKey: credentials.daemonPublicKey, secretKey: new Uint8Array(32) },
    };
    served = await startServe(data.dir);
  }, 60_000);

  afterAll(async () => {
    await runCleanups();
    if (served) await stop(served.serve);
    await data?.remove();
  });

  it('announces events in ready and answers the golden burst with the golden acks, 2 then 3', async () => {
    const mod = await rawModSession(`ws://127.0.0.1:${served.modPort}`, ids);
    expect(mod.first[0]).toEqual({ t: 'ready', events: true });
    mod.socket.send(mod.session.seal(burst));
    expect(await acks(mod, 2)).toEqual(burstAcks);
    await eventually(async () => (await gameEvents()).length === 3);
    expect((await gameEvents()).map((event) => event.type)).toEqual([
      'player.joined',
      'player.banned',
      'command.executed',
    ]);
  });

  it('acknowledges a body resent after a redial with its own highest seq, and stores nothing twice', async () => {
    const mod = await rawModSession(`ws://127.0.0.1:${served.modPort}`, ids);
    mod.socket.send(mod.session.seal([burst[0] as EventsFrame]));
    expect(await acks(mod, 1)).toEqual([burstAcks[0]]);
    expect(await gameEvents()).toHaveLength(3);
  });

  it("gets one ack per body the simulator sends, naming the body's last seq, in order", async () => {
    const sim = startSim(data.dir, served.modPort, ['--events-rate', '1200', '--log-level', 'debug']);
    try {
      const named = (msg: string, lines = logLines(sim)) => lines.filter((line) => line['msg'] === msg);
      await eventually(() => named('events acknowledged').length >= 5, 30_000);
      const lines = logLines(sim); // one snapshot: a body is logged as sent before its ack can arrive
      const sent = named('events sent', lines);
      const acked = named('events acknowledged', lines);
      const stream = sent[0]?.['stream'];
      expect(sent.every((line) => line['stream'] === stream)).toBe(true);
      // Acks come in body order, one per body: the n-th ack names the n-th body's last seq.
      expect(acked.map((line) => line['seq'])).toEqual(sent.slice(0, acked.length).map((b) => b['last_seq']));
      expect(acked.every((line) => (line['forgotten'] as number) >= 1)).toBe(true);
      const stored = acked.reduce((sum, line) => sum + (line['forgotten'] as number), 0);
      expect((await gameEvents()).length).toBeGreaterThanOrEqual(3 + stored);
    } finally {
      await stop(sim);
    }
  }, 60_000);
});
