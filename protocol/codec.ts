/**
 * The codec (PROTOCOL §2): plain, interoperable msgpack and nothing msgpackr-specific. `decode`
 * never throws; every rejection is a `ProtocolError` with a stable code. No sockets here.
 */
import { Packr, Unpackr } from 'msgpackr';
import { ProtocolError, type Outcome } from './errors.ts';
import { DEFAULT_CODEC_LIMITS, scanMsgpack, type CodecLimits } from './msgpack-scan.ts';

export { DEFAULT_CODEC_LIMITS, type CodecLimits } from './msgpack-scan.ts';

// PROTOCOL §2.1: maps, never records; the smallest map header; undefined properties are
// skipped (as JSON does) and an undefined array slot becomes nil, never msgpackr's ext 0.
// (`skipValues` exists in msgpackr 2.1 but is missing from its typings.)
const packr = new Packr({
  useRecords: false,
  variableMapSize: true,
  encodeUndefinedAsNil: true,
  skipValues: [undefined],
} as ConstructorParameters<typeof Packr>[0]);

// PROTOCOL §2.5: maps decode as plain objects; int64/uint64 in the safe range as numbers (the
// pre-scan has already rejected the rest).
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const ENCODE_MAX_DEPTH = DEFAULT_CODEC_LIMITS.maxDepth;

export function resolveLimits(limits?: Partial<CodecLimits>): CodecLimits {
  const resolved = { ...DEFAULT_CODEC_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`codec limit ${name} must be a positive integer, got ${String(value)}`);
    }
  }
  return resolved;
}

/**
 * Encodes a plain value: null, boolean, number, string, Uint8Array, arrays and plain objects.
 * Anything with no plain msgpack form (bigint, Date, Map, class instances, cycles) is a
 * programming error and throws a TypeError here rather than reach the peer as an ext type, as
 * does nesting deeper than `maxDepth` (a value placed in a batch array has one level less, §4.2).
 */
export function encode(value: unknown, maxDepth: number = ENCODE_MAX_DEPTH): Uint8Array {
  assertPlain(value, maxDepth);
  return packr.pack(value);
}

/** Decodes exactly one msgpack value within the limits (PROTOCOL §2.2–§2.5). Never throws. */
export function decode(bytes: Uint8Array, limits?: Partial<CodecLimits>): Outcome<unknown> {
  let resolved: CodecLimits;
  try {
    resolved = limits === undefined ? DEFAULT_CODEC_LIMITS : resolveLimits(limits);
  } catch (error) {
    return { ok: false, error: new ProtocolError('internal_error', (error as Error).message) };
  }
  return decodeWith(bytes, resolved);
}

/** `decode` with limits already resolved, for the hot path. */
export function decodeWith(bytes: Uint8Array, limits: CodecLimits): Outcome<unknown> {
  if (!(bytes instanceof Uint8Array)) {
    return { ok: false, error: new ProtocolError('malformed', 'input is not a byte array') };
  }
  const error = scanMsgpack(bytes, limits);
  if (error) return { ok: false, error };
  try {
    return { ok: true, value: unpackr.unpack(bytes) as unknown };
  } catch (cause) {
    // The pre-scan admits only what msgpackr decodes; this is defence in depth.
    return { ok: false, error: new ProtocolError('malformed', `undecodable: ${(cause as Error).message}`) };
  }
}

function assertPlain(root: unknown, maxDepth: number): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (value === null || value === undefined) continue;
    const type = typeof value;
    if (type === 'string' || type === 'number' || type === 'boolean') continue;
    if (type !== 'object') throw new TypeError(`cannot encode a ${type} as plain msgpack`);
    if (value instanceof Uint8Array) continue;
    if (depth >= maxDepth) throw new TypeError('value nests too deep (or is cyclic)');
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(`cannot encode a ${describe(value)} as plain msgpack`);
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw new TypeError(`map key "${key}" is forbidden`);
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
}

function describe(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' ? name : 'non-plain object';
}
