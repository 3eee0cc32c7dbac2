/**
 * The codec (PROTOCOL §2): plain, interoperable msgpack and nothing msgpackr-specific. `decode`
 * never throws; every rejection is a `ProtocolError` with a stable code. No sockets here.
 */
import { Packr } from 'msgpackr';
import { ProtocolError, type Outcome } from './errors.ts';
import { DEFAULT_CODEC_LIMITS, readMsgpack, type CodecLimits, type FloatPaths } from './msgpack-scan.ts';

export { DEFAULT_CODEC_LIMITS, type CodecLimits, type FloatPaths } from './msgpack-scan.ts';

/**
 * Thrown by `encode` for a string that has no UTF-8 form: one holding a lone UTF-16 surrogate
 * (PROTOCOL §2.6). msgpackr would write it as the invalid bytes ED A0 80; a strict peer closes the
 * link on them. A TypeError like every other unencodable value, with a stable `code`.
 */
export class InvalidStringError extends TypeError {
  readonly code = 'invalid_utf8';

  constructor(readonly path: string) {
    super(`the string at ${path || 'the top level'} holds a lone surrogate: it has no UTF-8 form`);
    this.name = 'InvalidStringError';
  }
}

/** ES2024 `String.prototype.isWellFormed` (Node 20), not yet in the ES2023 lib typings. */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

// PROTOCOL §2.1: maps, never records; the smallest map header; undefined properties are
// skipped (as JSON does) and an undefined array slot becomes nil, never msgpackr's ext 0.
// (`skipValues` exists in msgpackr 2.1 but is missing from its typings.)
const packr = new Packr({
  useRecords: false,
  variableMapSize: true,
  encodeUndefinedAsNil: true,
  skipValues: [undefined],
} as ConstructorParameters<typeof Packr>[0]);

// The same bytes for a value that holds no undefined anywhere: with neither skipValues nor
// encodeUndefinedAsNil to honour, msgpackr takes a map's keys with Object.keys instead of a
// for-in with a skip test per key, a third of its encoding time. `encode` picks this one only
// when its check of the value has seen no undefined.
const definedPackr = new Packr({ useRecords: false, variableMapSize: true } as ConstructorParameters<
  typeof Packr
>[0]);

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
  const checked = checkPlain(value, maxDepth);
  if (checked === PLAIN) return definedPackr.pack(value);
  // The precise walk names what is wrong and where; it throws for whatever checkPlain refused.
  if (checked === NOT_PLAIN) assertPlain(value, maxDepth);
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

/**
 * `decode` with limits already resolved, for the hot path. `floats`, when given, collects the
 * paths of floats at depth 1–4, so message parsers can refuse a float where an int belongs.
 */
export function decodeWith(
  bytes: Uint8Array,
  limits: CodecLimits,
  floats: FloatPaths | null = null,
): Outcome<unknown> {
  if (!(bytes instanceof Uint8Array)) {
    return { ok: false, error: new ProtocolError('malformed', 'input is not a byte array') };
  }
  // PROTOCOL §2.5: maps as plain objects, int64/uint64 (within the safe range) as numbers; the
  // value is built in the walk that checks it.
  return readMsgpack(bytes, limits, floats);
}

const PLAIN = 0;
const PLAIN_WITH_UNDEFINED = 1;
const NOT_PLAIN = 2;
type Checked = typeof PLAIN | typeof PLAIN_WITH_UNDEFINED | typeof NOT_PLAIN;

// The values still to check and their depths; `checkPlain` runs synchronously, so one pair of
// stacks serves every call, and a value checked allocates nothing.
const VALUES: unknown[] = [];
const DEPTHS: number[] = [];

/**
 * The fast pass of `assertPlain`: the same rules, no path kept, nothing allocated. Says whether
 * the value is plain, and whether an undefined sits anywhere in it (which only the full packr
 * skips or writes as nil); `NOT_PLAIN` leaves the error to `assertPlain`.
 */
function checkPlain(root: unknown, maxDepth: number): Checked {
  let result: Checked = PLAIN;
  let top = 0;
  VALUES[top] = root;
  DEPTHS[top++] = 0;
  while (top > 0) {
    const value = VALUES[--top];
    const depth = DEPTHS[top] as number;
    VALUES[top] = undefined; // keep no reference once the call returns
    if (value === undefined) result = PLAIN_WITH_UNDEFINED;
    else if (typeof value === 'string') {
      if (!isWellFormed(value)) return clear(top);
    } else if (value !== null && typeof value !== 'number' && typeof value !== 'boolean') {
      if (typeof value !== 'object' || depth >= maxDepth) return clear(top);
      if (value instanceof Uint8Array) continue;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i -= 1) {
          VALUES[top] = value[i];
          DEPTHS[top++] = depth + 1;
        }
        continue;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return clear(top);
      for (const key of Object.keys(value)) {
        if (FORBIDDEN_KEYS.has(key) || !isWellFormed(key)) return clear(top);
        VALUES[top] = (value as Record<string, unknown>)[key];
        DEPTHS[top++] = depth + 1;
      }
    }
  }
  return result;
}

function clear(top: number): Checked {
  VALUES.fill(undefined, 0, top);
  return NOT_PLAIN;
}

/** One value still to check, and where it sits (the path is only spelled out for an error). */
interface Pending {
  value: unknown;
  depth: number;
  parent: Pending | null;
  key: string | number;
}

function pathOf(entry: Pending): string {
  const parts: Array<string | number> = [];
  for (let at: Pending | null = entry; at?.parent; at = at.parent) parts.unshift(at.key);
  return parts.join('.');
}

function assertPlain(root: unknown, maxDepth: number): void {
  const stack: Pending[] = [{ value: root, depth: 0, parent: null, key: '' }];
  while (stack.length > 0) {
    const entry = stack.pop() as Pending;
    const { value, depth } = entry;
    if (value === null || value === undefined) continue;
    const type = typeof value;
    if (type === 'string') {
      if (!isWellFormed(value as string)) throw new InvalidStringError(pathOf(entry));
      continue;
    }
    if (type === 'number' || type === 'boolean') continue;
    if (type !== 'object') throw new TypeError(`cannot encode a ${type} as plain msgpack`);
    if (value instanceof Uint8Array) continue;
    if (depth >= maxDepth) throw new TypeError('value nests too deep (or is cyclic)');
    if (Array.isArray(value)) {
      value.forEach((item: unknown, key) =>
        stack.push({ value: item, depth: depth + 1, parent: entry, key }),
      );
      continue;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(`cannot encode a ${describe(value)} as plain msgpack`);
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw new TypeError(`map key "${key}" is forbidden`);
      if (!isWellFormed(key)) throw new InvalidStringError(`${pathOf(entry)} (a map key)`);
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: entry, key });
    }
  }
}

function describe(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' ? name : 'non-plain object';
}
