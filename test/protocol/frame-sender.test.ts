import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSeq } from '../../protocol/aead.ts';
import { DEFAULT_CODEC_LIMITS } from '../../protocol/codec.ts';
import { batchBounds } from '../../protocol/frame-batch.ts';
import { FrameSender, type FrameSenderOptions } from '../../protocol/frame-sender.ts';
import type { FrameBody } from '../../protocol/frames.ts';
import type { Session } from '../../protocol/session.ts';
import { openInMemory } from './support.ts';

const pong = (n: number): FrameBody => ({ t: 'pong', n });

/** A sender from the mod's session to the daemon's, with the flush run by hand (`turn`). */
function harness(options: Partial<FrameSenderOptions> = {}): {
  sender: FrameSender;
  frames: Uint8Array[];
  faults: unknown[];
  turn: () => void;
  receiver: Session;
} {
  const link = openInMemory();
  const frames: Uint8Array[] = [];
  const faults: unknown[] = [];
  const scheduled: Array<() => void> = [];
  const sender = new FrameSender({
    session: link.modSession,
    bounds: batchBounds(DEFAULT_CODEC_LIMITS),
    write: (frame) => frames.push(frame),
    onFault: (error) => faults.push(error),
    schedule: (flush) => scheduled.push(flush),
    ...options,
  });
  const turn = (): void => {
    for (const flush of scheduled.splice(0)) flush();
  };
  return { sender, frames, faults, turn, receiver: link.daemonSession };
}

/** Opens every frame in order at the receiver and returns the bodies of each. */
function openAll(receiver: Session, frames: Uint8Array[]): FrameBody[][] {
  return frames.map((frame) => {
    const opened = receiver.open(frame);
    if (!opened.ok) throw opened.error;
    return opened.value;
  });
}

describe('the frame sender', () => {
  it('seals the bodies sent in one turn into one frame, in order', () => {
    const { sender, frames, turn, receiver } = harness();
    for (let n = 1; n <= 5; n += 1) sender.send(pong(n));
    expect(frames).toHaveLength(0);
    turn();
    expect(frames).toHaveLength(1);
    expect(openAll(receiver, frames)).toEqual([[pong(1), pong(2), pong(3), pong(4), pong(5)]]);
  });

  it('sends a lone body in a frame of its own at the end of its turn', () => {
    const { sender, frames, turn, receiver } = harness();
    sender.send(pong(1));
    turn();
    sender.send(pong(2));
    turn();
    expect(frames.map(readSeq)).toEqual([1, 2]);
    expect(openAll(receiver, frames)).toEqual([[pong(1)], [pong(2)]]);
  });

  it('splits a turn of more than 256 bodies at the bound, keeping the order across frames', () => {
    const { sender, frames, turn, receiver } = harness();
    for (let n = 0; n < 300; n += 1) sender.send(pong(n));
    turn();
    expect(frames.map(readSeq)).toEqual([1, 2]);
    const opened = openAll(receiver, frames);
    expect(opened.map((bodies) => bodies.length)).toEqual([256, 44]);
    expect(opened.flat()).toEqual(Array.from({ length: 300 }, (_, n) => pong(n)));
  });

  it('splits a turn at the frame size so that no frame passes the peer limit', () => {
    const maxFrameBytes = 200;
    const { sender, frames, turn, receiver } = harness({
      bounds: batchBounds(DEFAULT_CODEC_LIMITS, maxFrameBytes),
    });
    const res = (id: number): FrameBody => ({ t: 'res', id, ok: true, result: 'x'.repeat(60) });
    for (let id = 1; id <= 6; id += 1) sender.send(res(id));
    turn();
    expect(frames.length).toBeGreaterThan(1);
    for (const frame of frames) expect(frame.length).toBeLessThanOrEqual(maxFrameBytes);
    expect(openAll(receiver, frames).flat()).toEqual([1, 2, 3, 4, 5, 6].map(res));
  });

  it('throws at once for a body that cannot be sent, queuing nothing and using no seq', () => {
    const { sender, frames, turn, receiver } = harness({
      bounds: batchBounds(DEFAULT_CODEC_LIMITS, 100),
    });
    expect(() => sender.send({ t: 'res', id: 1, ok: true, result: new Date() })).toThrow(TypeError);
    expect(() => sender.send({ t: 'res', id: 1, ok: true, result: 'x'.repeat(100) })).toThrow(RangeError);
    expect(sender.pending).toBe(0);
    sender.send(pong(1));
    turn();
    expect(frames.map(readSeq)).toEqual([1]);
    expect(openAll(receiver, frames)).toEqual([[pong(1)]]);
  });

  it('flushes on demand and drops what is discarded', () => {
    const { sender, frames, turn } = harness();
    sender.send(pong(1));
    sender.flush();
    expect(frames).toHaveLength(1);
    sender.send(pong(2));
    sender.discard();
    turn();
    expect(frames).toHaveLength(1);
    expect(sender.pending).toBe(0);
  });

  it('reports a fault in a scheduled flush instead of throwing it', () => {
    const { sender, faults, turn } = harness({
      write: () => {
        throw new Error('socket gone');
      },
    });
    sender.send(pong(1));
    expect(() => turn()).not.toThrow();
    expect((faults[0] as Error).message).toBe('socket gone');
    expect(sender.pending).toBe(0);
  });

  it('by default shares one frame among bodies that async work produces over many microtasks', async () => {
    const { sender, frames } = harness({ schedule: undefined });
    const work = [1, 2, 3, 4].map(async (n) => {
      for (let hop = 0; hop < n * 3; hop += 1) await Promise.resolve(); // like an async op handler
      sender.send(pong(n));
    });
    await Promise.all(work);
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames).toHaveLength(1);
  });

  it('delivers any turn of bodies in order, in frames within every bound', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 80 }), { minLength: 1, maxLength: 600 }),
        fc.integer({ min: 140, max: 4_000 }),
        (results, maxFrameBytes) => {
          const { sender, frames, turn, receiver } = harness({
            bounds: batchBounds(DEFAULT_CODEC_LIMITS, maxFrameBytes),
          });
          const bodies = results.map((result, id): FrameBody => ({ t: 'res', id, ok: true, result }));
          for (const body of bodies) sender.send(body);
          turn();
          const opened = openAll(receiver, frames);
          expect(opened.flat()).toEqual(bodies);
          for (const frame of frames) expect(frame.length).toBeLessThanOrEqual(maxFrameBytes);
          for (const batch of opened) expect(batch.length).toBeLessThanOrEqual(256);
        },
      ),
      { numRuns: 60 },
    );
  });
});
