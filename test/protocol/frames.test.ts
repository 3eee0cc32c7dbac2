import { describe, expect, it } from 'vitest';
import { MAX_FRAME_BODIES, parseFrameBatch, parseFrameBody } from '../../protocol/frames.ts';
import { expectRejected } from './support.ts';

describe('frame bodies', () => {
  it('accepts each frame type from the side that may send it', () => {
    expect(parseFrameBody({ t: 'ready' }, 'daemon').ok).toBe(true);
    expect(parseFrameBody({ t: 'ping', n: 0 }, 'mod').ok).toBe(true);
    expect(parseFrameBody({ t: 'pong', n: 0xffffffff }, 'daemon').ok).toBe(true);
    const req = { t: 'req', id: 1, op: 'server.status', args: {}, deadline_ms: 5000, op_id: 'k' };
    expect(parseFrameBody(req, 'daemon')).toEqual({ ok: true, value: req });
    const res = {
      t: 'res',
      id: 1,
      ok: false,
      error: { code: 'not_found', message: 'no', details: { a: 1 } },
    };
    expect(parseFrameBody(res, 'mod')).toEqual({ ok: true, value: res });
  });

  it('drops unknown extra fields', () => {
    expect(parseFrameBody({ t: 'ping', n: 1, future: true }, 'mod')).toEqual({
      ok: true,
      value: { t: 'ping', n: 1 },
    });
  });

  it('accepts a res whose result is nil', () => {
    expect(parseFrameBody({ t: 'res', id: 1, ok: true, result: null }, 'mod').ok).toBe(true);
  });

  it.each([
    ['an unknown t', { t: 'hello2' }, 'mod'],
    ['a req from the mod', { t: 'req', id: 1, op: 'x', args: {}, deadline_ms: 1 }, 'mod'],
    ['a res from the daemon', { t: 'res', id: 1, ok: true, result: 1 }, 'daemon'],
    ['a ready from the mod', { t: 'ready' }, 'mod'],
  ] as const)('rejects %s with unexpected_frame', (_name, body, sender) => {
    expectRejected(parseFrameBody(body, sender), 'unexpected_frame');
  });

  it.each([
    ['a non-map body', [1, 2], 'mod'],
    ['a missing t', { n: 1 }, 'mod'],
    ['a ping without n', { t: 'ping' }, 'mod'],
    ['a ping with n above u32', { t: 'ping', n: 2 ** 32 }, 'mod'],
    ['a ping with a fractional n', { t: 'ping', n: 1.5 }, 'mod'],
    ['a req with a negative id', { t: 'req', id: -1, op: 'x', args: {}, deadline_ms: 1 }, 'daemon'],
    ['a req whose args is an array', { t: 'req', id: 1, op: 'x', args: [], deadline_ms: 1 }, 'daemon'],
    [
      'a req with a numeric op_id',
      { t: 'req', id: 1, op: 'x', args: {}, deadline_ms: 1, op_id: 5 },
      'daemon',
    ],
    ['a res without ok', { t: 'res', id: 1, result: 1 }, 'mod'],
    ['a successful res without result', { t: 'res', id: 1, ok: true }, 'mod'],
    ['a failed res without error', { t: 'res', id: 1, ok: false }, 'mod'],
    [
      'a failed res whose details is a str',
      { t: 'res', id: 1, ok: false, error: { code: 'x', message: 'y', details: 'z' } },
      'mod',
    ],
  ] as const)('rejects %s with invalid_message', (_name, body, sender) => {
    expectRejected(parseFrameBody(body, sender), 'invalid_message');
  });
});

describe('frame batches', () => {
  it('accept 1 to 256 bodies and return them in order', () => {
    const pongs = Array.from({ length: MAX_FRAME_BODIES }, (_, n) => ({ t: 'pong', n }));
    expect(parseFrameBatch(pongs.slice(0, 1), 'mod')).toEqual({ ok: true, value: pongs.slice(0, 1) });
    expect(parseFrameBatch(pongs, 'mod')).toEqual({ ok: true, value: pongs });
  });

  it.each([
    ['an empty array', [], /at least one/],
    ['257 bodies', Array.from({ length: MAX_FRAME_BODIES + 1 }, () => ({ t: 'ping', n: 1 })), /got 257/],
    ['a bare body', { t: 'ping', n: 1 }, /not a map \(a bare body\)/],
    ['nil', null, /not nil/],
    ['a number', 7, /not a number/],
    ['a bin', new Uint8Array(2), /not a bin/],
  ] as const)('reject %s with invalid_batch', (_name, value, message) => {
    expect(expectRejected(parseFrameBatch(value, 'mod'), 'invalid_batch').message).toMatch(message);
  });

  it('reject a batch with one bad body with that body code, naming its place', () => {
    const batch = [
      { t: 'pong', n: 1 },
      { t: 'req', id: 1, op: 'x', args: {}, deadline_ms: 1 },
    ];
    const error = expectRejected(parseFrameBatch(batch, 'mod'), 'unexpected_frame');
    expect(error.message).toBe('body 2 of 2: a mod may not send "req"');
  });
});

describe('events_ack refusals (PROTOCOL §9.5)', () => {
  it('accepts an ack listing refused events, keeping a reason it does not know', () => {
    const ack = { t: 'events_ack', stream: 's', seq: 3, refused: [{ seq: 2, reason: 'some_future_reason' }] };
    expect(parseFrameBody(ack, 'daemon')).toEqual({ ok: true, value: ack });
    expect(parseFrameBody({ ...ack, refused: null }, 'daemon')).toEqual({
      ok: true,
      value: { t: 'events_ack', stream: 's', seq: 3 },
    });
  });

  it('rejects a refused list that is not an array of {seq u32, reason str}', () => {
    const base = { t: 'events_ack', stream: 's', seq: 3 };
    for (const refused of [
      {},
      [{ seq: -1, reason: 'x' }],
      [{ seq: 1 }],
      [1],
      Array(1025).fill({ seq: 1, reason: 'x' }),
    ]) {
      expectRejected(parseFrameBody({ ...base, refused }, 'daemon'), 'invalid_message');
    }
  });

  it('rejects an event seq sent as a float in an events body', () => {
    const body = { t: 'events', stream: 's', events: [{ seq: 1, type: 'player.left', at: 'x', data: {} }] };
    expect(parseFrameBatch([body], 'mod').ok).toBe(true);
    expectRejected(parseFrameBatch([body], 'mod', new Set(['0/events/0/seq'])), 'invalid_message');
  });
});

describe('events stream ids', () => {
  it('counts a stream id in UTF-8 bytes, not UTF-16 code units', () => {
    const body = (stream: string) => ({
      t: 'events',
      stream,
      events: [{ seq: 1, type: 'x', at: 'x', data: {} }],
    });
    expect(parseFrameBody(body('s'.repeat(64)), 'mod').ok).toBe(true);
    expectRejected(parseFrameBody(body('é'.repeat(33)), 'mod'), 'invalid_message'); // 33 chars, 66 bytes
  });
});
