/**
 * The rejection vectors (PROTOCOL §8.3): inputs every implementation must refuse, each with the
 * error code and close code it must produce. Three layers: raw msgpack (codec), handshake
 * messages, and sealed session frames.
 */
import { aeadKey, sealFrame } from '../aead.ts';
import { decode, encode } from '../codec.ts';
import type { ProtocolErrorCode } from '../errors.ts';
import { MAX_FRAME_BODIES } from '../frames.ts';
import { hkdfSha256 } from '../keys.ts';
import type { CodecLimits } from '../msgpack-scan.ts';
import {
  closeCodeOf,
  counting,
  GOLDEN_FRAMES,
  hex,
  keyFor,
  unhex,
  type Direction,
  type GoldenHandshake,
} from './golden-run.ts';

type Case = { name: string; code: ProtocolErrorCode };

function expect<T extends Case>(entry: T): T & { close_code: number } {
  return { ...entry, close_code: closeCodeOf(entry.code) };
}

type CodecCase = [name: string, bytes: string, code: ProtocolErrorCode, limits?: Partial<CodecLimits>];

/** Raw msgpack byte strings fed to `decode` with default limits unless `limits` says otherwise. */
export function codecCases(): Array<Record<string, unknown>> {
  const cases: CodecCase[] = [
    ['empty message', '', 'malformed'],
    ['map truncated inside its first value', '82a174', 'malformed'],
    ['array count beyond the bytes left', 'dc0010c0', 'malformed'],
    ['trailing byte after the value', 'c0c0', 'malformed'],
    ['reserved byte 0xc1', 'c1', 'malformed'],
    ['fixext 1', 'd40100', 'unsupported_type'],
    ['timestamp ext -1', 'd6ff00000000', 'unsupported_type'],
    ['integer map key', '810102', 'non_string_key'],
    ['bin map key', '81c40161c0', 'non_string_key'],
    ['key __proto__', '81a95f5f70726f746f5f5fc0', 'forbidden_key'],
    ['key constructor inside an array', '9181ab636f6e7374727563746f72c0', 'forbidden_key'],
    ['key prototype in a nested map', '81a16181a970726f746f74797065c0', 'forbidden_key'],
    ['33 nested arrays', '91'.repeat(33) + 'c0', 'depth_exceeded'],
    ['uint64 2^53', 'cf0020000000000000', 'integer_out_of_range'],
    ['int64 -2^53', 'd3ffe0000000000000', 'integer_out_of_range'],
    ['int64 -2^63', 'd38000000000000000', 'integer_out_of_range'],
    ['array32 of 2^32-1 entries', 'ddffffffff', 'collection_too_large'],
    ['message over maxBytes', 'b4' + '61'.repeat(20), 'frame_too_large', { maxBytes: 16 }],
    ['str over maxStringBytes', 'a568656c6c6f', 'string_too_long', { maxStringBytes: 4 }],
    ['bin over maxBinBytes', 'c403010203', 'string_too_long', { maxBinBytes: 2 }],
    ['array over maxEntries', '93c0c0c0', 'collection_too_large', { maxEntries: 2 }],
    ['map over maxEntries', '83a161c0a162c0a163c0', 'collection_too_large', { maxEntries: 2 }],
    ['values over maxElements', '9292c0c0c0', 'too_many_elements', { maxElements: 3 }],
  ];
  return cases.map(([name, bytes, code, limits]) =>
    expect({ name, bytes, ...(limits ? { limits } : {}), code }),
  );
}

/** Accepted edge cases: the limits are inclusive. */
export function codecAcceptedCases(): Array<{ name: string; bytes: string }> {
  return [
    { name: '32 nested arrays', bytes: '91'.repeat(32) + 'c0' },
    { name: 'uint64 2^53-1', bytes: 'cf001fffffffffffff' },
    { name: 'int64 -(2^53-1)', bytes: 'd3ffe0000000000001' },
    { name: 'float64 map value under a str key', bytes: '81a178cb3ff8000000000000' },
  ];
}

type HandshakeCase = [
  name: string,
  receiver: 'daemon' | 'mod',
  messages: string[],
  code: ProtocolErrorCode,
  trust?: { trusted_mod_keys: string[] } | { pinned_daemon_key: string },
];

/**
 * Handshake messages fed in order to a fresh machine built from the golden inputs. A mod
 * receiver has already sent the golden hello. `trusted_mod_keys` / `pinned_daemon_key` override
 * the golden trust when present.
 */
export function handshakeCases(h: GoldenHandshake): Array<Record<string, unknown>> {
  const flipLast = (bytes: Uint8Array): string => {
    const copy = new Uint8Array(bytes);
    copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 0x01;
    return hex(copy);
  };
  const hello = fieldsOf(h.hello);
  const welcome = fieldsOf(h.welcome);
  const cases: HandshakeCase[] = [
    ['no common version', 'daemon', [hex(encode({ ...hello, versions: [2, 3] }))], 'unsupported_version'],
    ['untrusted mod key', 'daemon', [hex(h.hello)], 'unknown_identity', { trusted_mod_keys: [] }],
    ['bad mod signature', 'daemon', [hex(h.hello), flipLast(h.auth)], 'bad_signature'],
    ['auth before hello', 'daemon', [hex(h.auth)], 'unexpected_frame'],
    ['hello without a nonce', 'daemon', [hex(encode({ ...hello, nonce: undefined }))], 'invalid_message'],
    ['bad daemon signature', 'mod', [flipLast(h.welcome)], 'bad_signature'],
    [
      'daemon key is not the pinned one',
      'mod',
      [hex(h.welcome)],
      'unknown_identity',
      { pinned_daemon_key: hex(counting(0xe0)) },
    ],
    ['version not offered', 'mod', [hex(encode({ ...welcome, version: 2 }))], 'unsupported_version'],
  ];
  return cases.map(([name, receiver, messages, code, trust]) =>
    expect({ name, receiver, ...trust, messages, code }),
  );
}

/** A golden message as a plain object whose fields can be overridden and re-encoded. */
function fieldsOf(bytes: Uint8Array): Record<string, unknown> {
  const decoded = decode(bytes);
  if (!decoded.ok) throw decoded.error;
  return { ...(decoded.value as Record<string, unknown>) };
}

type SessionCase = [
  name: string,
  direction: Direction,
  frames: string[],
  rejectedAt: number,
  code: ProtocolErrorCode,
  limits?: Partial<CodecLimits>,
];

/**
 * Session frames fed in order to a fresh receiving session for `direction` (expected seq 1;
 * a mod receiver also expects `ready` first). Every frame before `rejected_at` is accepted.
 */
export function sessionCases(h: GoldenHandshake): Array<Record<string, unknown>> {
  const d2m: Direction = 'daemon->mod';
  const m2d: Direction = 'mod->daemon';
  const seal = (
    direction: Direction,
    seq: number,
    plaintext: Uint8Array,
    key = keyFor(h, direction),
  ): string => hex(sealFrame(aeadKey(key), seq, plaintext));
  const golden = (direction: Direction, index: number): Uint8Array =>
    encode(GOLDEN_FRAMES.filter((f) => f.direction === direction)[index]?.bodies);
  const [m1, m2, m3] = [0, 1, 2].map((i) => seal(m2d, i + 1, golden(m2d, i))) as [string, string, string];
  const flip = (frameHex: string, index: number): string => {
    const bytes = unhex(frameHex);
    const at = index < 0 ? bytes.length + index : index;
    bytes[at] = (bytes[at] as number) ^ 0x80;
    return hex(bytes);
  };
  const batch = (...bodies: unknown[]): string => seal(m2d, 1, encode(bodies));
  const raw = (plaintextHex: string): string => seal(m2d, 1, unhex(plaintextHex));
  const otherSession = hkdfSha256(counting(0x10), counting(0x30), 'modgate/1 mod->daemon');
  const cases: SessionCase[] = [
    ['flipped tag byte', m2d, [flip(m1, -1)], 0, 'bad_mac'],
    ['flipped ciphertext byte', m2d, [flip(m1, 8)], 0, 'bad_mac'],
    ['flipped byte in the last body of a three-body frame', m2d, [m1, m2, flip(m3, -17)], 2, 'bad_mac'],
    ['flipped seq byte', m2d, [flip(m1, 7)], 0, 'bad_mac'],
    ['frame sealed under a wrong key', m2d, [seal(m2d, 1, golden(m2d, 0), new Uint8Array(32))], 0, 'bad_mac'],
    ['frame from another session', m2d, [seal(m2d, 1, golden(m2d, 0), otherSession)], 0, 'bad_mac'],
    ['frame of the other direction (reflection)', m2d, [seal(d2m, 1, golden(d2m, 0))], 0, 'bad_mac'],
    ['repeated seq (replay)', m2d, [m1, m1], 1, 'sequence'],
    ['skipped seq', m2d, [m2], 0, 'sequence'],
    ['reordered seq', m2d, [m1, m3, m2], 1, 'sequence'],
    ['frame shorter than seq and tag', m2d, [m1.slice(0, 48)], 0, 'malformed'],
    ['truncated msgpack in the batch', m2d, [raw('9182a174')], 0, 'malformed'],
    [
      'forbidden key in a body',
      m2d,
      [raw('9183a174a4706f6e67a16e01a95f5f70726f746f5f5fc0')],
      0,
      'forbidden_key',
    ],
    ...batchCases(seal, batch, raw),
    ['ready from the mod', m2d, [batch({ t: 'ready' })], 0, 'unexpected_frame'],
    ['unknown frame type', m2d, [batch({ t: 'hello2' })], 0, 'unexpected_frame'],
    ['req from the mod after a valid res', m2d, [batch(...reqAfterRes())], 0, 'unexpected_frame'],
    ['pong with a negative n', m2d, [batch({ t: 'pong', n: -1 })], 0, 'invalid_message'],
    ['second body invalid', m2d, [batch({ t: 'pong', n: 1 }, { t: 'pong', n: -1 })], 0, 'invalid_message'],
    ['a number among the bodies', m2d, [batch({ t: 'pong', n: 1 }, 5)], 0, 'invalid_message'],
    ['req before ready', d2m, [seal(d2m, 1, encode([REQ]))], 0, 'unexpected_frame'],
    ['req before ready in the first frame', d2m, [seal(d2m, 1, encode([REQ, READY]))], 0, 'unexpected_frame'],
    ['second ready in the first frame', d2m, [seal(d2m, 1, encode([READY, READY]))], 0, 'unexpected_frame'],
    [
      'ready again in a later frame',
      d2m,
      [seal(d2m, 1, encode([READY])), seal(d2m, 2, encode([READY]))],
      1,
      'unexpected_frame',
    ],
    [
      'batch over maxBytes',
      m2d,
      [batch({ t: 'pong', n: 1 }, { t: 'pong', n: 2, pad: 'x'.repeat(80) })],
      0,
      'frame_too_large',
      { maxBytes: 64 },
    ],
    ...eventCases(seal, batch),
  ];
  return cases.map(([name, direction, frames, rejectedAt, code, limits]) =>
    expect({ name, direction, ...(limits ? { limits } : {}), frames, rejected_at: rejectedAt, code }),
  );
}

const READY = { t: 'ready' };
const REQ = { t: 'req', id: 1, op: 'server.status', args: {}, deadline_ms: 5000 };

function reqAfterRes(): unknown[] {
  return [{ t: 'res', id: 1, ok: true, result: null }, REQ];
}

/** PROTOCOL §4.2 rule 1: the plaintext is an array of 1 to MAX_FRAME_BODIES bodies, nothing else. */
function batchCases(
  seal: (direction: Direction, seq: number, plaintext: Uint8Array) => string,
  batch: (...bodies: unknown[]) => string,
  raw: (plaintextHex: string) => string,
): SessionCase[] {
  const m2d: Direction = 'mod->daemon';
  const pongs = (count: number): unknown[] => Array.from({ length: count }, (_, i) => ({ t: 'pong', n: i }));
  return [
    ['a bare body, not in an array', m2d, [raw(hex(encode({ t: 'pong', n: 1 })))], 0, 'invalid_batch'],
    ['an empty array', m2d, [raw('90')], 0, 'invalid_batch'],
    ['nil instead of an array', m2d, [raw('c0')], 0, 'invalid_batch'],
    ['a str instead of an array', m2d, [raw('a3616263')], 0, 'invalid_batch'],
    [
      `${MAX_FRAME_BODIES} bodies, then ${MAX_FRAME_BODIES + 1}`,
      m2d,
      [batch(...pongs(MAX_FRAME_BODIES)), seal(m2d, 2, encode(pongs(MAX_FRAME_BODIES + 1)))],
      1,
      'invalid_batch',
    ],
  ];
}

/** PROTOCOL §9: events only from the mod, acks only from the daemon, well-formed and in order. */
function eventCases(
  seal: (direction: Direction, seq: number, plaintext: Uint8Array) => string,
  batch: (...bodies: unknown[]) => string,
): SessionCase[] {
  const m2d: Direction = 'mod->daemon';
  const d2m: Direction = 'daemon->mod';
  const event = (seq: number) => ({ seq, type: 'player.left', at: '2025-06-01T12:00:00.000Z', data: {} });
  const events = (...list: unknown[]) => ({ t: 'events', stream: 's1', events: list });
  return [
    [
      'events_ack from the mod',
      m2d,
      [batch({ t: 'events_ack', stream: 's1', seq: 1 })],
      0,
      'unexpected_frame',
    ],
    ['events with no events', m2d, [batch(events())], 0, 'invalid_message'],
    ['events whose seq goes back', m2d, [batch(events(event(2), event(1)))], 0, 'invalid_message'],
    ['events with seq 0', m2d, [batch(events(event(0)))], 0, 'invalid_message'],
    [
      'events with an empty stream id',
      m2d,
      [batch({ ...events(event(1)), stream: '' })],
      0,
      'invalid_message',
    ],
    ['events from the daemon', d2m, [seal(d2m, 1, encode([READY, events(event(1))]))], 0, 'unexpected_frame'],
  ];
}
