/**
 * Issue 24, item 5: a mod that misbehaves with game events cannot exhaust or crash the daemon.
 * A real `modgate serve` process, started on a data dir whose event log already holds a line far
 * past the line limit (written by hand), faces a hand-driven mod on a raw socket that sends an
 * oversized event, the daemon's own event types, malformed data and times, a flood past the rate,
 * and finally an event seq as a float. The daemon refuses each event and says so in the ack, closes
 * the link only for the protocol violation, counts everything in metrics, logs refusals in a few
 * lines rather than hundreds, and stays healthy: /healthz and GET /v1/events answer 200, and the
 * webhook endpoint keeps receiving the valid events.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../../daemon/store/mod-credentials.ts';
import { startModBridge } from '../../bridge/bridge.ts';
import { encode } from '../../protocol/codec.ts';
import type { EventsAckFrame, FrameBody, ModEvent } from '../../protocol/frames.ts';
import type { Session } from '../../protocol/session.ts';
import { closeOf, nextBodies, rawModSession, runCleanups } from '../protocol/support.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { banData, commandData } from '../support/game-events.ts';
import { freePort } from '../../harness/ports.ts';
import { logLines, startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';
import { openSse } from '../../harness/sse-client.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const AT = '2025-06-01T12:00:00.000Z';
const STREAM = 'hostile';
const BURST = 200;

interface RawMod {
  socket: WebSocket;
  session: Session;
  next: () => Promise<Uint8Array>;
}

describe('a hostile mod sending game events to a real serve', () => {
  let data: TestDataDir;
  let key: string;
  let serve: ModgateProcess;
  let hook: Receiver;
  let api: string;
  let modLink: string;
  let metricsAt: string;
  let seq = 0;

  const get = (path: string) =>
    fetch(`http://${api}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const metric = async (name: string, labels = '') => {
    const text = await (await fetch(`http://${metricsAt}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
    return Number(line?.split(' ')[1] ?? Number.NaN);
  };
  const event = (over: Partial<ModEvent> = {}): ModEvent => ({
    seq: (seq += 1),
    type: 'command.executed',
    at: AT,
    data: commandData(`#Say ${seq}`),
    ...over,
  });
  /** Sends one `events` body and waits for its ack (skipping pings). */
  const send = async (mod: RawMod, events: ModEvent[]): Promise<EventsAckFrame> => {
    mod.socket.send(mod.session.seal([{ t: 'events', stream: STREAM, events }]));
    for (;;) {
      if (mod.socket.readyState !== mod.socket.OPEN) throw new Error('the daemon closed the link');
      const bodies: FrameBody[] = await nextBodies(mod);
      const ack = bodies.find((body): body is EventsAckFrame => body.t === 'events_ack');
      if (ack) return ack;
    }
  };

  beforeAll(async () => {
    data = await makeDataDir();
    key = (await data.createKey('--name', 'watcher')).key;
    metricsAt = `127.0.0.1:${await freePort()}`;
    hook = await startReceiver();
    hook.secret = (await data.addWebhook(hook.url, '--events', 'command.executed')).secret;
    // Written after the endpoint: a new endpoint receives only what is logged after it
    // (docs/events.md), and these events are what it must read past the over-long line for.
    await writeOverlongSegment(data.dir);
    const config = join(data.dir, 'modgate.toml');
    await writeFile(config, `[events]\nmod_events_per_second = 1\nmod_events_burst = ${BURST}\n`);
    const served = await startServe(data.dir, { extra: ['--metrics-listen', metricsAt, '--config', config] });
    serve = served.serve;
    api = `127.0.0.1:${served.apiPort}`;
    modLink = `127.0.0.1:${served.modPort}`;
  }, 60_000);

  afterAll(async () => {
    await runCleanups();
    if (serve) await stop(serve);
    await hook?.close();
    await data?.remove();
  });

  it('skips the over-long line written before start and serves the events around it', async () => {
    const page = await get('/v1/events?after=0');
    expect(page.status).toBe(200);
    const ids = ((await page.json()) as { data: Array<{ id: number }> }).data.map((e) => e.id);
    expect(ids.slice(0, 2)).toEqual([1, 3]);
    // The stream's catch-up reads past it too.
    const stream = await openSse(`http://${api}/v1/events?after=0`, { authorization: `Bearer ${key}` });
    await stream.next((message) => message.id === '3');
    expect(stream.messages.filter((m) => m.id !== null).map((m) => m.id)).toEqual(['1', '3']);
    stream.close();
    expect(await metric('modgate_event_log_lines_skipped_total')).toBe(1);
  });

  it('refuses every bad event in the ack, closes only for a float seq, and stays healthy', async () => {
    const credentials = await (await DataDir.open(data.dir)).read(modCredentialsFile);
    const ids = {
      mod: credentials.identity,
      daemon: { publicKey: credentials.daemonPublicKey, secretKey: new Uint8Array(32) },
    };
    const mod = await rawModSession(`ws://${modLink}`, ids);

    const oversize = await send(mod, [event({ data: commandData('#Say', 'x'.repeat(200_000)) })]);
    expect(oversize.refused).toEqual([{ seq: 1, reason: 'event_too_large' }]);

    const bad = [
      event({ type: 'mod.connected', data: { mod_version: 'forged', protocol_version: 1 } }),
      event({ type: 'player.banned', data: {} }),
      event({ type: 'player.banned', data: banData(), at: 'not a time' }),
    ];
    const valid = event({ data: commandData('#Say survivor') });
    const mixed = await send(mod, [...bad, valid]);
    expect(mixed.seq).toBe(valid.seq);
    expect(mixed.refused?.map((r) => r.reason)).toEqual(['reserved_type', 'invalid_data', 'invalid_at']);

    let rateLimited = 0;
    for (let frame = 0; frame < 4; frame += 1) {
      const ack = await send(
        mod,
        Array.from({ length: 100 }, () => event()),
      );
      rateLimited += ack.refused?.filter((r) => r.reason === 'rate_limited').length ?? 0;
    }
    expect(rateLimited).toBeGreaterThanOrEqual(400 - BURST - 10);

    // The one protocol violation: an integer field sent as a float closes the link (§2.1).
    const body = Buffer.from(encode({ t: 'events', stream: STREAM, events: [event()] }));
    const floated = swapSeqForFloat(body, seq);
    const closed = closeOf(mod.socket);
    mod.socket.send(mod.session.sealBatch([floated]));
    expect(await closed).toEqual({ code: 4020, reason: 'invalid_message' });

    expect((await fetch(`http://${api}/healthz`)).status).toBe(200);
    const page = await get('/v1/events?after=0&limit=1000');
    expect(page.status).toBe(200);
    const stored = ((await page.json()) as { data: Array<{ type: string; data: Record<string, unknown> }> })
      .data;
    expect(stored.filter((e) => e.type === 'mod.connected' && e.data['mod_version'] === 'forged')).toEqual(
      [],
    );
    expect(stored.some((e) => e.type === 'command.executed' && e.data['command'] === '#Say survivor')).toBe(
      true,
    );

    for (const reason of ['event_too_large', 'reserved_type', 'invalid_data', 'invalid_at', 'rate_limited']) {
      expect(await metric('modgate_mod_events_refused_total', `reason="${reason}"`)).toBeGreaterThan(0);
    }
    const refusalLines = logLines(serve).filter((line) =>
      String(line['msg']).startsWith('mod events refused'),
    );
    expect(refusalLines.length).toBeGreaterThan(0);
    expect(refusalLines.length).toBeLessThanOrEqual(2);
  }, 60_000);

  it('keeps delivering valid events to the webhook endpoint, and stores a well-behaved mod after', async () => {
    const delivered = () =>
      hook.processed.map((r) => (r.json as { data?: { command?: string } }).data?.command);
    // The endpoint starts before the hand-written segment: it reads past the over-long line.
    await eventually(() => delivered().includes('#Say after the huge one'));
    expect(delivered().slice(0, 2)).toEqual(['#Say before', '#Say after the huge one']);
    await eventually(
      () =>
        hook.processed.some(
          (r) => (r.json as { data?: { command?: string } }).data?.command === '#Say survivor',
        ),
      20_000,
    );
    const credentials = await (await DataDir.open(data.dir)).read(modCredentialsFile);
    const bridge = startModBridge({
      url: `ws://${modLink}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      modVersion: '2.1.0',
      handlers: {},
    });
    try {
      // The rate bucket refills at 1 event a second: one well-behaved event goes through.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      bridge.events.emit('command.executed', commandData('#Say after'));
      await eventually(() => bridge.events.pending === 0);
      await eventually(
        () =>
          hook.processed.some(
            (r) => (r.json as { data?: { command?: string } }).data?.command === '#Say after',
          ),
        20_000,
      );
    } finally {
      await bridge.close();
    }
  }, 60_000);
});

/**
 * A segment written by hand before the daemon starts: events 1 and 3 are fine, event 2 is a
 * 2 MiB line, twice the daemon's line limit.
 */
async function writeOverlongSegment(dataDir: string): Promise<void> {
  const folder = join(dataDir, 'events');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const line = (id: number, data: Record<string, unknown>) =>
    `${JSON.stringify({ id, type: 'command.executed', at: AT, data, stored: Date.now() })}\n`;
  const text =
    `${JSON.stringify({ modgate_events: 1, first_id: 1, streams: {} })}\n` +
    line(1, commandData('#Say before')) +
    line(2, commandData('#Say huge', 'h'.repeat(2 * 1024 * 1024))) +
    line(3, commandData('#Say after the huge one'));
  await writeFile(join(folder, 'events-000000000001.jsonl'), text, { mode: 0o600 });
}

/** The encoded body with its event's `seq` (an int of any width) rewritten as a float64. */
function swapSeqForFloat(body: Buffer, value: number): Uint8Array {
  const key = Buffer.from([0xa3, 0x73, 0x65, 0x71]); // the str "seq"
  const int = Buffer.from(encode(value));
  const at = body.indexOf(Buffer.concat([key, int]));
  if (at === -1) throw new Error('test: seq not found');
  const float = Buffer.alloc(9);
  float[0] = 0xcb;
  float.writeDoubleBE(value, 1);
  const end = at + key.length;
  return Buffer.concat([body.subarray(0, end), float, body.subarray(end + int.length)]);
}
