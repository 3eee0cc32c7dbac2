/**
 * Vectors for the decisions two independent implementers asked about (PROTOCOL §2.4–§2.6, §3.2,
 * §4.2 rule 5, §4.4): duplicate keys, UTF-8, floats in integer fields, the code for a wrong first
 * message or role, which error wins in a batch of several bad bodies, and the edge cases a
 * receiver must accept. The msgpack is written by hand where `encode` would never produce it.
 */
import { aeadKey, sealFrame } from '../aead.ts';
import { decode, encode } from '../codec.ts';
import type { ProtocolErrorCode } from '../errors.ts';
import { parseFrameBatch, type FrameBody } from '../frames.ts';
import { closeCodeOf, hex, keyFor, unhex, type Direction, type GoldenHandshake } from './golden-run.ts';

/** msgpack float64 1.0, where an int 1 belongs. */
const FLOAT_ONE = 'cb3ff0000000000000';

/** Replaces the one occurrence of `find` in `text`; throws if it is not exactly once. */
function swap(text: string, find: string, replace: string): string {
  const at = text.indexOf(find);
  if (at === -1 || text.indexOf(find, at + 1) !== -1)
    throw new Error(`vector: ${find} not found exactly once`);
  return text.slice(0, at) + replace + text.slice(at + find.length);
}

/** `"key": 1` (fixstr key, positive fixint 1) as hex, for swapping the 1 for a float. */
const intField = (key: string): string => hex(encode({ [key]: 1 })).slice(2);

type Case = [name: string, bytes: string, code: ProtocolErrorCode];

export function decisionCodecCases(): Array<Record<string, unknown>> {
  const cases: Case[] = [
    ['duplicate key in a map', '82a161c0a161c0', 'duplicate_key'],
    ['duplicate key in a nested map', '81a16182a162c0a162c0', 'duplicate_key'],
    ['lone surrogate U+D800 as UTF-8 bytes (ED A0 80)', 'a3eda080', 'invalid_utf8'],
    ['lone surrogate in a map key', '81a3eda080c0', 'invalid_utf8'],
    ['overlong "/" (C0 AF)', 'a2c0af', 'invalid_utf8'],
    ['UTF-8 sequence cut short', 'a1c3', 'invalid_utf8'],
    ['byte FF in a str', 'a1ff', 'invalid_utf8'],
  ];
  return cases.map(([name, bytes, code]) => ({ name, bytes, code, close_code: closeCodeOf(code) }));
}

export function decisionCodecAccepted(): Array<{ name: string; bytes: string }> {
  const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
  return [
    { name: 'the bytes ED A0 80 in a bin', bytes: 'c403eda080' },
    { name: 'a 4-byte UTF-8 character (U+1F600)', bytes: 'a4f09f9880' },
    { name: 'the same key in two different maps', bytes: '9281a161c081a161c0' },
    { name: 'a map of 20 distinct keys', bytes: hex(encode(Object.fromEntries(keys.map((k) => [k, 0])))) },
  ];
}

/** `"versions": [1]` as hex. */
const VERSIONS = hex(encode({ versions: [1] })).slice(2);

type HandshakeCase = [name: string, receiver: 'daemon' | 'mod', messages: string[], code: ProtocolErrorCode];

export function decisionHandshakeCases(h: GoldenHandshake): Array<Record<string, unknown>> {
  const hello = hex(h.hello);
  const welcome = hex(h.welcome);
  const helloFields = decoded(h.hello);
  const cases: HandshakeCase[] = [
    ['first message is a welcome, not a hello', 'daemon', [welcome], 'unexpected_frame'],
    [
      'hello with role "daemon"',
      'daemon',
      [hex(encode({ ...helloFields, role: 'daemon' }))],
      'invalid_message',
    ],
    [
      'hello with role missing',
      'daemon',
      [hex(encode({ ...helloFields, role: undefined }))],
      'invalid_message',
    ],
    [
      'offered version 1 as float64 1.0',
      'daemon',
      [swap(hello, VERSIONS, VERSIONS.slice(0, -2) + FLOAT_ONE)],
      'invalid_message',
    ],
    [
      'hello with a duplicate key',
      'daemon',
      [swap(hello, '87a174', '88a174a568656c6c6fa174')],
      'duplicate_key',
    ],
    ['mod_version not UTF-8', 'daemon', [swap(hello, 'a6322e302e3437', 'a6322e302eeda0')], 'invalid_utf8'],
    ['first message is a hello, not a welcome', 'mod', [hello], 'unexpected_frame'],
    [
      'chosen version as float64 1.0',
      'mod',
      [swap(welcome, intField('version'), intField('version').slice(0, -2) + FLOAT_ONE)],
      'invalid_message',
    ],
  ];
  return cases.map(([name, receiver, messages, code]) => ({
    name,
    receiver,
    messages,
    code,
    close_code: closeCodeOf(code),
  }));
}

function decoded(bytes: Uint8Array): Record<string, unknown> {
  const result = decode(bytes);
  if (!result.ok) throw result.error;
  return Array.isArray(result.value)
    ? (result.value as never)
    : { ...(result.value as Record<string, unknown>) };
}

const READY = { t: 'ready' };
const REQ = { t: 'req', id: 1, op: 'server.status', args: {}, deadline_ms: 5000 };

type SessionCase = [name: string, direction: Direction, plaintext: string, code: ProtocolErrorCode];

/** One frame at seq 1 each; `rejected_at` is always 0. */
export function decisionSessionCases(h: GoldenHandshake): Array<Record<string, unknown>> {
  const body = (value: unknown): string => hex(encode(value));
  const batch = (...bodies: string[]): string => `9${bodies.length.toString(16)}${bodies.join('')}`;
  const floated = (value: Record<string, unknown>, key: string): string =>
    swap(body(value), intField(key), intField(key).slice(0, -2) + FLOAT_ONE);
  const deadline = hex(encode({ deadline_ms: 5000 })).slice(2);
  const cases: SessionCase[] = [
    [
      'res.id as float64 1.0',
      'mod->daemon',
      batch(floated({ t: 'res', id: 1, ok: true, result: null }, 'id')),
      'invalid_message',
    ],
    ['pong.n as float64 1.0', 'mod->daemon', batch(floated({ t: 'pong', n: 1 }, 'n')), 'invalid_message'],
    [
      'applied.id as float64 1.0',
      'mod->daemon',
      batch(floated({ t: 'applied', id: 1 }, 'id')),
      'invalid_message',
    ],
    ['req.id as float64 1.0', 'daemon->mod', batch(body(READY), floated(REQ, 'id')), 'invalid_message'],
    [
      'req.deadline_ms as float64 5000.0',
      'daemon->mod',
      batch(body(READY), swap(body(REQ), deadline, deadline.slice(0, -6) + 'cb40b3880000000000')),
      'invalid_message',
    ],
    [
      'events[0].seq as float64 1.0',
      'mod->daemon',
      batch(
        floated(
          { t: 'events', stream: 's', events: [{ seq: 1, type: 'player.left', at: 'x', data: {} }] },
          'seq',
        ),
      ),
      'invalid_message',
    ],
    ['a body with a duplicate key', 'mod->daemon', batch('83a174a4706f6e67a16e01a16e02'), 'duplicate_key'],
    [
      'a result str that is not UTF-8',
      'mod->daemon',
      batch(swap(body({ t: 'res', id: 1, ok: true, result: 'ab' }), 'a26162', 'a2eda0')),
      'invalid_utf8',
    ],
    // §4.2 rule 5 with §4.6: every body's shape is checked, in order, before any state rule.
    [
      'req before ready, then a malformed pong: the shape error wins',
      'daemon->mod',
      batch(body(REQ), body({ t: 'pong', n: -1 })),
      'invalid_message',
    ],
    [
      'unknown t, then a malformed pong: the first bad body wins',
      'mod->daemon',
      batch(body({ t: 'hello2' }), body({ t: 'pong', n: -1 })),
      'unexpected_frame',
    ],
    [
      'malformed pong, then an unknown t: the first bad body wins',
      'mod->daemon',
      batch(body({ t: 'pong', n: -1 }), body({ t: 'hello2' })),
      'invalid_message',
    ],
  ];
  return cases.map(([name, direction, plaintext, code]) => ({
    name,
    direction,
    frames: [hex(sealFrame(aeadKey(keyFor(h, direction)), 1, unhex(plaintext)))],
    rejected_at: 0,
    code,
    close_code: closeCodeOf(code),
  }));
}

export type AcceptedCase = [name: string, direction: Direction, bodies: Record<string, unknown>[]];

/**
 * Frames a receiver must accept (§4.4 edge cases), each with the bodies it hands on: unknown
 * fields are dropped, a nil `op_id` is no op id, and a float in op arguments or results is fine.
 */
export function sessionAcceptedCases(h: GoldenHandshake): Array<Record<string, unknown>> {
  const cases: AcceptedCase[] = [
    ['res with ok true and a nil result', 'mod->daemon', [{ t: 'res', id: 1, ok: true, result: null }]],
    [
      'res with id 0 (no pending call: dropped later, not a protocol error)',
      'mod->daemon',
      [{ t: 'res', id: 0, ok: true, result: {} }],
    ],
    [
      'res with an unknown extra field',
      'mod->daemon',
      [{ t: 'res', id: 2, ok: true, result: {}, trace: 'x' }],
    ],
    [
      'res error without details and with an unknown field',
      'mod->daemon',
      [{ t: 'res', id: 3, ok: false, error: { code: 'not_found', message: 'no', hint: 1 } }],
    ],
    ['req with a nil op_id', 'daemon->mod', [READY, { ...REQ, op_id: null }]],
    ['req with a float in its args', 'daemon->mod', [READY, { ...REQ, args: { amount: 1.5 } }]],
    [
      'events_ack listing refused events, one with a reason this side does not know (§9.5)',
      'daemon->mod',
      [
        READY,
        {
          t: 'events_ack',
          stream: 's',
          seq: 3,
          refused: [
            { seq: 2, reason: 'rate_limited' },
            { seq: 3, reason: 'some_future_reason' },
          ],
        },
      ],
    ],
  ];
  return cases.map((entry) => acceptedCase(h, entry));
}

/** One `session_accepted` vector: the bodies in one frame at seq 1, and what the receiver hands on. */
export function acceptedCase(
  h: GoldenHandshake,
  [name, direction, bodies]: AcceptedCase,
): Record<string, unknown> {
  const plaintext = encode(bodies);
  const parsed = parseFrameBatch(decoded(plaintext), direction === 'mod->daemon' ? 'mod' : 'daemon');
  if (!parsed.ok) throw parsed.error;
  return {
    name,
    direction,
    frames: [hex(sealFrame(aeadKey(keyFor(h, direction)), 1, plaintext))],
    bodies: parsed.value satisfies FrameBody[],
  };
}
