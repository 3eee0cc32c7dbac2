/**
 * The vectors of the game-event rules an outside implementer had to guess (PROTOCOL §9.1–§9.2):
 * `ready.events` false or mistyped, `events` to a daemon that did not announce them, the stream
 * id's 64 counted in UTF-8 bytes, seq at and past 2^32 − 1 and past 2^53, a seq that repeats in
 * a body, 1,024 events then 1,025, and gaps (accepted). Each limit has a vector at it (accepted)
 * and one past it (rejected, with the code the reference receiver gives).
 */
import { aeadKey, sealFrame } from '../aead.ts';
import { encode } from '../codec.ts';
import type { ProtocolErrorCode } from '../errors.ts';
import { MAX_EVENTS_PER_BODY, type ReadyFrame } from '../frames.ts';
import { acceptedCase, type AcceptedCase } from './decisions.ts';
import { closeCodeOf, hex, keyFor, unhex, type Direction, type GoldenHandshake } from './golden-run.ts';

const AT = '2025-06-01T12:00:00.000Z';
const READY: ReadyFrame = { t: 'ready' };

/** A `player.left` event; its shape is the daemon's business (§9.5), not the receiver's. */
const event = (seq: number) => ({
  seq,
  type: 'player.left',
  at: AT,
  data: { player: { platform_id: '76561190000000001', social_id: null } },
});
/** The smallest event the receiver accepts, for the bodies of 1,024 and 1,025. */
const tiny = (seq: number) => ({ seq, type: 'x', at: 'x', data: {} });
const events = (list: unknown[], stream = 's1') => ({ t: 'events', stream, events: list });

/** The hex of `events(event(1))` with its seq's msgpack (`01`) replaced by `seqHex`. */
function withSeq(seqHex: string): string {
  const body = hex(encode(events([event(1)])));
  const field = hex(encode({ seq: 1 })).slice(2); // "seq": 1 as fixstr key and fixint
  const at = body.indexOf(field);
  return body.slice(0, at) + field.slice(0, -2) + seqHex + body.slice(at + field.length);
}

/** 64 bytes of UTF-8 in 32 UTF-16 code units, then 65 bytes in 33: the limit counts bytes. */
export const STREAM_64_BYTES = 'é'.repeat(32);
export const STREAM_65_BYTES = 'a' + 'é'.repeat(32);
export const STREAM_64_BYTES_4 = '😀'.repeat(16);

type SessionCase = {
  name: string;
  direction: Direction;
  /** Plaintexts (hex) sealed at seq 1, 2, …; the last is the one rejected. */
  plaintexts: string[];
  code: ProtocolErrorCode;
  /** A daemon receiver's own `ready` when it is not `{t:'ready', events:true}`. */
  ready?: ReadyFrame;
};

const batch = (...bodies: string[]): string => {
  if (bodies.length > 15) throw new Error('vector: fixarray batches only');
  return (0x90 | bodies.length).toString(16) + bodies.join('');
};
const body = (value: unknown): string => hex(encode(value));

/** Session rejections of §9.1–§9.2, each frame sealed in order from seq 1. */
export function eventSessionCases(h: GoldenHandshake): Array<Record<string, unknown>> {
  const m2d: Direction = 'mod->daemon';
  const d2m: Direction = 'daemon->mod';
  const many = (count: number) => body(events(Array.from({ length: count }, (_, i) => tiny(i + 1))));
  const cases: SessionCase[] = [
    {
      name: 'events to a daemon whose ready did not announce them (§9.1)',
      direction: m2d,
      plaintexts: [batch(body(events([event(1)])))],
      code: 'unexpected_frame',
      ready: READY,
    },
    {
      name: 'ready whose events is not a bool (§9.1)',
      direction: d2m,
      plaintexts: [batch(body({ t: 'ready', events: 1 }))],
      code: 'invalid_message',
    },
    {
      name: 'events with a stream of 65 bytes of UTF-8 (33 UTF-16 code units)',
      direction: m2d,
      plaintexts: [batch(body(events([event(1)], STREAM_65_BYTES)))],
      code: 'invalid_message',
    },
    {
      name: 'events with seq 2^32 (uint64), one past u32',
      direction: m2d,
      plaintexts: [batch(withSeq('cf0000000100000000'))],
      code: 'invalid_message',
    },
    {
      name: 'events with seq 2^53 (uint64): the codec refuses it first',
      direction: m2d,
      plaintexts: [batch(withSeq('cf0020000000000000'))],
      code: 'integer_out_of_range',
    },
    {
      name: 'events with a stream that is a bin, not a str',
      direction: m2d,
      plaintexts: [batch(body({ ...events([event(1)]), stream: new Uint8Array([0x73]) }))],
      code: 'invalid_message',
    },
    {
      name: 'an event whose data is not a map',
      direction: m2d,
      plaintexts: [batch(body(events([{ ...event(1), data: [] }])))],
      code: 'invalid_message',
    },
    {
      name: 'events whose seq repeats within the body',
      direction: m2d,
      plaintexts: [batch(body(events([event(1), event(1)])))],
      code: 'invalid_message',
    },
    {
      name: `events of ${MAX_EVENTS_PER_BODY} events, then ${MAX_EVENTS_PER_BODY + 1}`,
      direction: m2d,
      plaintexts: [batch(many(MAX_EVENTS_PER_BODY)), batch(many(MAX_EVENTS_PER_BODY + 1))],
      code: 'invalid_message',
    },
  ];
  return cases.map(({ name, direction, plaintexts, code, ready }) => ({
    name,
    direction,
    ...(ready ? { ready } : {}),
    frames: plaintexts.map((plaintext, i) =>
      hex(sealFrame(aeadKey(keyFor(h, direction)), i + 1, unhex(plaintext))),
    ),
    rejected_at: plaintexts.length - 1,
    code,
    close_code: closeCodeOf(code),
  }));
}

/** Frames a receiver must accept at the §9 limits, with the bodies it hands on. */
export function eventSessionAccepted(h: GoldenHandshake): Array<Record<string, unknown>> {
  const cases: AcceptedCase[] = [
    [
      'ready with events false (no events on this session, §9.1)',
      'daemon->mod',
      [{ t: 'ready', events: false }],
    ],
    [
      'events with a stream of 64 bytes of UTF-8 (32 two-byte characters)',
      'mod->daemon',
      [events([event(1)], STREAM_64_BYTES)],
    ],
    [
      'events with a stream of 64 bytes of UTF-8 (16 four-byte characters)',
      'mod->daemon',
      [events([event(1)], STREAM_64_BYTES_4)],
    ],
    ['events with a stream of 1 byte', 'mod->daemon', [events([event(1)], 's')]],
    ['events with seq 2^32 − 1', 'mod->daemon', [events([event(0xffff_ffff)])]],
    [
      'events whose seqs leave gaps (1, 3, 7): not an error',
      'mod->daemon',
      [events([event(1), event(3), event(7)])],
    ],
  ];
  return cases.map((entry) => acceptedCase(h, entry));
}
