import { describe, expect, it } from 'vitest';
import { FRAME_OVERHEAD, aeadKey, readSeq, sealFrame } from '../../protocol/aead.ts';
import { encode } from '../../protocol/codec.ts';
import type { FrameBody } from '../../protocol/frames.ts';
import { Session } from '../../protocol/session.ts';
import { expectOnlyWholeFrameOpens, expectRejected, handshakeInMemory, openInMemory } from './support.ts';

const req = (id: number): FrameBody => ({ t: 'req', id, op: 'server.status', args: {}, deadline_ms: 5_000 });
const pong = (n: number): FrameBody => ({ t: 'pong', n });

describe('a session', () => {
  it('carries frames both ways with seq counting from 1 in each direction', () => {
    const link = handshakeInMemory();
    const ready = link.daemonSession.seal([{ t: 'ready' }]);
    expect(readSeq(ready)).toBe(1);
    expect(link.modSession.open(ready)).toEqual({ ok: true, value: [{ t: 'ready' }] });
    const request = link.daemonSession.seal([req(1)]);
    expect(readSeq(request)).toBe(2);
    expect(link.modSession.open(request)).toEqual({ ok: true, value: [req(1)] });
    const answer = link.modSession.seal([{ t: 'res', id: 1, ok: true, result: { player_count: 3 } }]);
    expect(readSeq(answer)).toBe(1);
    expect(link.daemonSession.open(answer)).toEqual({
      ok: true,
      value: [{ t: 'res', id: 1, ok: true, result: { player_count: 3 } }],
    });
    expect(link.daemonSession.expectedSeq).toBe(2);
  });

  it('keeps the body confidential: the plaintext does not appear in the frame', () => {
    const link = openInMemory();
    const body = { t: 'res', id: 9, ok: true, result: { secret: 'player-ip-10.0.0.7' } } as const;
    const frame = link.modSession.seal([body]);
    expect(Buffer.from(frame).includes(Buffer.from('player-ip'))).toBe(false);
    expect(frame.length).toBe(encode([body]).length + FRAME_OVERHEAD);
  });

  it('starts the mod in await_ready and the daemon open', () => {
    const link = handshakeInMemory();
    expect(link.modSession.state).toBe('await_ready');
    expect(link.daemonSession.state).toBe('open');
    expect(() => link.modSession.seal([pong(1)])).toThrow(/await_ready/);
  });

  it('rejects a first frame other than ready at the mod with unexpected_frame', () => {
    const link = handshakeInMemory();
    expectRejected(link.modSession.open(link.daemonSession.seal([req(1)])), 'unexpected_frame');
  });

  it('rejects a second ready with unexpected_frame', () => {
    const link = openInMemory();
    expectRejected(link.modSession.open(link.daemonSession.seal([{ t: 'ready' }])), 'unexpected_frame');
  });

  it('rejects a forged tag with bad_mac', () => {
    const link = openInMemory();
    const frame = link.modSession.seal([pong(1)]);
    frame[frame.length - 1] = (frame[frame.length - 1] as number) ^ 0x01;
    expectRejected(link.daemonSession.open(frame), 'bad_mac');
  });

  it('rejects a flipped ciphertext bit with bad_mac', () => {
    const link = openInMemory();
    const frame = link.modSession.seal([pong(1)]);
    frame[9] = (frame[9] as number) ^ 0x40;
    expectRejected(link.daemonSession.open(frame), 'bad_mac');
  });

  it('rejects a rewritten seq with bad_mac, since the seq is authenticated', () => {
    const link = openInMemory();
    link.modSession.seal([pong(1)]);
    const second = link.modSession.seal([pong(2)]);
    second[7] = 1; // claim seq 1: the tag was computed over seq 2
    expectRejected(link.daemonSession.open(second), 'bad_mac');
  });

  it('rejects a replayed frame with sequence', () => {
    const link = openInMemory();
    const frame = link.modSession.seal([pong(1)]);
    expect(link.daemonSession.open(frame).ok).toBe(true);
    expectRejected(link.daemonSession.open(frame), 'sequence');
  });

  it('rejects a reordered frame with sequence', () => {
    const link = openInMemory();
    const first = link.modSession.seal([pong(1)]);
    const second = link.modSession.seal([pong(2)]);
    expectRejected(link.daemonSession.open(second), 'sequence');
    expect(first).toBeDefined();
  });

  it('rejects a skipped seq with sequence', () => {
    const link = openInMemory();
    expect(link.daemonSession.open(link.modSession.seal([pong(1)])).ok).toBe(true);
    link.modSession.seal([pong(2)]); // lost in transit
    const error = expectRejected(link.daemonSession.open(link.modSession.seal([pong(3)])), 'sequence');
    expect(error.message).toMatch(/expected seq 2, got 3/);
  });

  it('rejects a frame from another session between the same identities with bad_mac', () => {
    const first = openInMemory();
    const other = openInMemory();
    expectRejected(first.daemonSession.open(other.modSession.seal([pong(1)])), 'bad_mac');
  });

  it('rejects a frame reflected back to its sender with bad_mac', () => {
    const link = openInMemory();
    const frame = link.daemonSession.seal([{ t: 'ping', n: 1 }]);
    expectRejected(link.daemonSession.open(frame), 'bad_mac');
  });

  it('rejects a frame sealed under a wrong key with bad_mac', () => {
    const link = openInMemory();
    const frame = sealFrame(aeadKey(new Uint8Array(32).fill(9)), 1, encode([pong(1)]));
    expectRejected(link.daemonSession.open(frame), 'bad_mac');
  });

  it('rejects a frame of 24 bytes or fewer as malformed', () => {
    const link = openInMemory();
    expectRejected(link.daemonSession.open(new Uint8Array(FRAME_OVERHEAD)), 'malformed');
  });

  it('rejects a body over maxBytes with frame_too_large before decrypting', () => {
    const link = openInMemory();
    const receiver = new Session(link.daemon, { maxBytes: 32 });
    const frame = link.modSession.seal([{ t: 'pong', n: 1, pad: 'x'.repeat(40) } as FrameBody]);
    expectRejected(receiver.open(frame), 'frame_too_large');
  });

  it('rejects every prefix of a frame, one byte at a time, without accepting any', () => {
    const link = openInMemory();
    const frame = link.modSession.seal([pong(1)]);
    expectOnlyWholeFrameOpens(link, frame);
  });

  it('applies the codec limits to the decrypted body', () => {
    const link = openInMemory();
    const frame = sealFrame(aeadKey(link.mod.sendKey), 1, Buffer.from('9181a95f5f70726f746f5f5fc0', 'hex'));
    expectRejected(link.daemonSession.open(frame), 'forbidden_key');
  });

  it('rejects a frame type the sender may not send with unexpected_frame', () => {
    const link = openInMemory();
    const frame = sealFrame(aeadKey(link.mod.sendKey), 1, encode([req(1)]));
    expectRejected(link.daemonSession.open(frame), 'unexpected_frame');
  });

  it('reports one failure: later frames get the same error and the state stays failed', () => {
    const link = openInMemory();
    const good = link.modSession.seal([pong(1)]);
    const forged = new Uint8Array(good);
    forged[20] = (forged[20] as number) ^ 1;
    const first = expectRejected(link.daemonSession.open(forged), 'bad_mac');
    const again = link.daemonSession.open(good);
    expect(again).toEqual({ ok: false, error: first });
    expect(link.daemonSession.state).toBe('failed');
  });

  it('does not consume a seq when a body cannot be sealed', () => {
    const link = openInMemory();
    expect(() => link.modSession.seal([{ t: 'res', id: 1, ok: true, result: new Date() }])).toThrow(
      TypeError,
    );
    const small = new Session(link.daemon, { maxBytes: 16 }); // a daemon session starts open
    expect(() => small.seal([{ t: 'ping', n: 1, pad: 'x'.repeat(64) } as FrameBody])).toThrow(RangeError);
    expect(link.daemonSession.open(link.modSession.seal([pong(1)])).ok).toBe(true);
  });
});
