import { describe, expect, it } from 'vitest';
import { aeadKey, readSeq, sealFrame } from '../../protocol/aead.ts';
import { encode } from '../../protocol/codec.ts';
import { MAX_FRAME_BODIES, type FrameBody } from '../../protocol/frames.ts';
import { Session } from '../../protocol/session.ts';
import {
  expectOnlyWholeFrameOpens,
  expectRejected,
  handshakeInMemory,
  hex,
  openInMemory,
  type InMemoryLink,
} from './support.ts';

const req = (id: number): FrameBody => ({ t: 'req', id, op: 'server.status', args: {}, deadline_ms: 5_000 });
const res = (id: number): FrameBody => ({ t: 'res', id, ok: true, result: { player_count: id } });
const pong = (n: number): FrameBody => ({ t: 'pong', n });
const pongs = (count: number): FrameBody[] => Array.from({ length: count }, (_, n) => pong(n));

/** A frame the mod could never produce through `seal`, sealed under its real key. */
function modFrame(link: InMemoryLink, plaintext: Uint8Array, seq = 1): Uint8Array {
  return sealFrame(aeadKey(link.mod.sendKey), seq, plaintext);
}

describe('a session frame with several bodies', () => {
  it('opens to its bodies in order under one seq and one tag', () => {
    const link = openInMemory();
    const frame = link.modSession.seal([res(2), pong(7), res(1)]);
    expect(readSeq(frame)).toBe(1);
    expect(link.daemonSession.open(frame)).toEqual({ ok: true, value: [res(2), pong(7), res(1)] });
    expect(link.daemonSession.expectedSeq).toBe(2);
  });

  it('keeps the order of bodies across frames', () => {
    const link = openInMemory();
    const frames = [[res(1), res(2)], [res(3)], [res(4), res(5), res(6)]].map((batch) =>
      link.modSession.seal(batch),
    );
    const bodies = frames.flatMap((frame) => {
      const opened = link.daemonSession.open(frame);
      return opened.ok ? opened.value : [];
    });
    expect(bodies).toEqual([1, 2, 3, 4, 5, 6].map(res));
  });

  it('lets ready share the daemon first frame with requests', () => {
    const link = handshakeInMemory();
    const frame = link.daemonSession.seal([{ t: 'ready' }, req(1), req(2)]);
    expect(link.modSession.open(frame)).toEqual({ ok: true, value: [{ t: 'ready' }, req(1), req(2)] });
    expect(link.modSession.state).toBe('open');
  });

  it('accepts 256 bodies in one frame', () => {
    const link = openInMemory();
    const opened = link.daemonSession.open(link.modSession.seal(pongs(MAX_FRAME_BODIES)));
    expect(opened.ok && opened.value.length).toBe(MAX_FRAME_BODIES);
  });

  it('rejects every prefix of a multi-body frame, one byte at a time, and accepts the whole', () => {
    const link = openInMemory();
    const frame = link.modSession.seal([res(1), pong(2), res(3)]);
    expectOnlyWholeFrameOpens(link, frame);
  });
});

describe('the batch rules', () => {
  it.each([
    ['an empty array', '90'],
    ['nil', 'c0'],
    ['a str', 'a3616263'],
    ['a bare body, not in an array', Buffer.from(encode(pong(1))).toString('hex')],
  ])('reject %s as the plaintext with invalid_batch (4022)', (_name, plaintext) => {
    const link = openInMemory();
    const error = expectRejected(link.daemonSession.open(modFrame(link, hex(plaintext))), 'invalid_batch');
    expect(error.closeCode).toBe(4022);
  });

  it('reject 257 bodies in one frame with invalid_batch', () => {
    const link = openInMemory();
    const frame = modFrame(link, encode(pongs(MAX_FRAME_BODIES + 1)));
    const error = expectRejected(link.daemonSession.open(frame), 'invalid_batch');
    expect(error.message).toMatch(/at most 256 bodies, got 257/);
  });

  it('reject the whole frame when one body is invalid, naming the body', () => {
    const link = openInMemory();
    const frame = modFrame(link, encode([res(1), { t: 'pong', n: -1 }, res(2)]));
    const error = expectRejected(link.daemonSession.open(frame), 'invalid_message');
    expect(error.message).toMatch(/^body 2 of 3: pong\.n must be a u32/);
  });

  it('reject a req from the mod even behind a valid res with unexpected_frame', () => {
    const link = openInMemory();
    expectRejected(link.daemonSession.open(modFrame(link, encode([res(1), req(1)]))), 'unexpected_frame');
  });

  it('reject a request ahead of ready in the daemon first frame with unexpected_frame', () => {
    const link = handshakeInMemory();
    const frame = sealFrame(aeadKey(link.daemon.sendKey), 1, encode([req(1), { t: 'ready' }]));
    expectRejected(link.modSession.open(frame), 'unexpected_frame');
  });

  it('reject a second ready in the same frame and in a later frame with unexpected_frame', () => {
    const same = handshakeInMemory();
    expectRejected(
      same.modSession.open(same.daemonSession.seal([{ t: 'ready' }, { t: 'ready' }])),
      'unexpected_frame',
    );
    const later = openInMemory();
    expectRejected(later.modSession.open(later.daemonSession.seal([{ t: 'ready' }])), 'unexpected_frame');
  });

  it('count the batch array toward the depth limit', () => {
    const link = openInMemory();
    const receiver = new Session(link.daemon, { maxDepth: 2 });
    const flat = link.modSession.seal([pong(1)]); // array, then the body map: depth 2
    expect(receiver.open(flat).ok).toBe(true);
    const nested = link.modSession.seal([{ t: 'res', id: 1, ok: true, result: [] }]); // depth 3
    expectRejected(receiver.open(nested), 'depth_exceeded');
  });

  it('refuse to seal an empty batch, more than 256 bodies, or a plaintext over maxBytes', () => {
    const link = openInMemory();
    expect(() => link.modSession.seal([])).toThrow(RangeError);
    expect(() => link.modSession.seal(pongs(MAX_FRAME_BODIES + 1))).toThrow(RangeError);
    const small = new Session(link.daemon, { maxBytes: 32 });
    expect(() => small.seal(pongs(4))).toThrow(RangeError);
    expect(link.daemonSession.open(link.modSession.seal([pong(1)])).ok).toBe(true); // no seq was used
  });
});
