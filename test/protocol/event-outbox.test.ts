import { describe, expect, it } from 'vitest';
import {
  EVENTS_PER_BODY,
  EventOutbox,
  MAX_BODY_BYTES,
  MAX_BODY_VALUES,
  MAX_EVENT_BYTES,
  MAX_EVENT_DEPTH,
} from '../../protocol/event-outbox.ts';
import { silentLogger } from '../../protocol/log.ts';
import { countValues } from '../../protocol/msgpack-scan.ts';
import { decode, encode } from '../../protocol/codec.ts';
import type { EventsFrame } from '../../protocol/frames.ts';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A `data` map nested `depth` levels deep, itself included. */
function nested(depth: number): Record<string, unknown> {
  let data: Record<string, unknown> = {};
  for (let level = 1; level < depth; level += 1) data = { d: data };
  return data;
}

function sink() {
  const bodies: EventsFrame[] = [];
  return {
    bodies,
    send: (body: EventsFrame) => void bodies.push(body),
    seqs: () => bodies.flatMap((b) => b.events.map((e) => e.seq)),
  };
}

describe('EventOutbox', () => {
  it('numbers events of its stream from 1 and keeps them until acknowledged', () => {
    const outbox = new EventOutbox({ stream: 's' });
    expect(outbox.emit('player.left', { n: 1 })).toBe(1);
    expect(outbox.emit('player.left', { n: 2 })).toBe(2);
    outbox.ack('s', 1);
    expect(outbox.pending).toBe(1);
    outbox.ack('another stream', 2);
    expect(outbox.pending).toBe(1);
    outbox.ack('s', 2);
    expect(outbox.pending).toBe(0);
  });

  it('sends what is pending on attach, then each new event at the end of its turn, in order', async () => {
    const outbox = new EventOutbox();
    const link = sink();
    outbox.emit('player.left', {});
    outbox.attach(link.send);
    expect(link.seqs()).toEqual([1]);
    outbox.emit('player.left', {});
    outbox.emit('player.left', {});
    expect(link.seqs()).toEqual([1]);
    await turn();
    expect(link.seqs()).toEqual([1, 2, 3]);
    expect(link.bodies[1]?.stream).toBe(outbox.stream);
  });

  it('sends everything unacknowledged again on the next session, and nothing acknowledged', async () => {
    const outbox = new EventOutbox();
    const first = sink();
    outbox.attach(first.send);
    for (let n = 0; n < 5; n += 1) outbox.emit('player.left', { n });
    await turn();
    outbox.ack(outbox.stream, 2);
    outbox.detach();
    outbox.emit('player.left', { n: 5 });
    const second = sink();
    outbox.attach(second.send);
    expect(second.seqs()).toEqual([3, 4, 5, 6]);
  });

  it('splits a long backlog into bodies of at most EVENTS_PER_BODY events', () => {
    const outbox = new EventOutbox();
    for (let n = 0; n < EVENTS_PER_BODY * 2 + 1; n += 1) outbox.emit('player.left', { n });
    const link = sink();
    outbox.attach(link.send);
    expect(link.bodies.map((body) => body.events.length)).toEqual([EVENTS_PER_BODY, EVENTS_PER_BODY, 1]);
  });

  it('drops the oldest events past its capacity and counts them', () => {
    const outbox = new EventOutbox({ capacity: 3 });
    for (let n = 0; n < 5; n += 1) outbox.emit('player.left', { n });
    expect(outbox.pending).toBe(3);
    expect(outbox.dropped).toBe(2);
    const link = sink();
    outbox.attach(link.send);
    expect(link.seqs()).toEqual([3, 4, 5]);
  });

  it('keeps its events when the link refuses them while closing', () => {
    const outbox = new EventOutbox();
    outbox.emit('player.left', {});
    outbox.attach(() => {
      throw new Error('link is closing, not open');
    });
    expect(outbox.pending).toBe(1);
    expect(outbox.dropped).toBe(0);
  });

  it('forgets events the daemon refused, counts them and logs their reasons once per ack', () => {
    const warnings: unknown[] = [];
    const log = { debug() {}, info() {}, error() {}, warn: (...args: unknown[]) => void warnings.push(args) };
    const outbox = new EventOutbox({ stream: 's', log });
    for (let n = 0; n < 3; n += 1) outbox.emit('player.left', {});
    outbox.ack('s', 3, [
      { seq: 1, reason: 'rate_limited' },
      { seq: 2, reason: 'rate_limited' },
    ]);
    expect(outbox.pending).toBe(0);
    expect(outbox.refused).toBe(2);
    expect(warnings).toEqual([
      ['the daemon refused events (not stored)', { reasons: { rate_limited: 2 }, first_seq: 1 }],
    ]);
  });

  it('keeps each body within MAX_BODY_BYTES of events, splitting a backlog of large events', () => {
    const outbox = new EventOutbox();
    const link = sink();
    const big = { text: 'x'.repeat(60_000) };
    for (let n = 0; n < 12; n += 1) outbox.emit('command.executed', big);
    outbox.attach(link.send);
    expect(link.seqs()).toEqual([...Array(12).keys()].map((n) => n + 1));
    expect(link.bodies.length).toBeGreaterThan(1);
    for (const body of link.bodies) {
      const bytes = body.events.reduce((sum, event) => sum + encode(event).length, 0);
      expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
    }
  });

  it('keeps each body within MAX_BODY_VALUES values, which the daemon counts per frame', () => {
    const outbox = new EventOutbox();
    const link = sink();
    const crowded = { values: Array.from({ length: 40_000 }, () => 0) }; // 40 KB, 40,001 values
    for (let n = 0; n < 4; n += 1) outbox.emit('command.executed', crowded);
    outbox.attach(link.send);
    expect(link.bodies.map((body) => body.events.length)).toEqual([3, 1]);
    for (const body of link.bodies) expect(countValues(encode(body))).toBeLessThan(MAX_BODY_VALUES + 16);
  });

  it('drops an event too large or too deep when emitted: no seq, never sent, counted and logged', async () => {
    const errors: unknown[] = [];
    const log = { ...silentLogger, error: (msg: string) => errors.push(msg) };
    const outbox = new EventOutbox({ log });
    const link = sink();
    outbox.attach(link.send);
    const at = '2025-06-01T12:00:00.000Z';
    const fits = (text: string) => encode({ seq: 1, type: 'command.executed', at, data: { text } }).length;
    let text = 'x'.repeat(MAX_EVENT_BYTES - 100);
    while (fits(text) < MAX_EVENT_BYTES) text += 'x';
    expect(outbox.emit('command.executed', { text }, at)).toBe(1); // exactly at the limit: sent
    expect(outbox.emit('command.executed', { text: text + 'x' }, at)).toBe(0);
    expect(outbox.emit('command.executed', { when: new Date() }, at)).toBe(0); // no msgpack form
    expect(outbox.emit('command.executed', nested(MAX_EVENT_DEPTH - 1), at)).toBe(2); // with the event map: at it
    expect(outbox.emit('command.executed', nested(MAX_EVENT_DEPTH), at)).toBe(0); // deeper than a frame allows
    expect(outbox.emit('player.left', {}, at)).toBe(3);
    expect(outbox.dropped).toBe(3);
    expect(outbox.pending).toBe(3);
    expect(errors).toHaveLength(3);
    await turn();
    expect(link.seqs()).toEqual([1, 2, 3]);
    // What was sent fits a frame at the daemon: its decoder takes the batch whole.
    const plaintext = encode(link.bodies);
    expect(decode(plaintext).ok).toBe(true);
  });

  it('ignores an ack that covers nothing pending: another stream, a seq already forgotten', () => {
    const outbox = new EventOutbox({ stream: 's' });
    for (let n = 0; n < 3; n += 1) outbox.emit('player.left', {});
    outbox.ack('s', 2);
    expect(() => outbox.ack('s', 2)).not.toThrow();
    outbox.ack('s', 1);
    outbox.ack('other', 3);
    expect(outbox.pending).toBe(1);
  });
});
