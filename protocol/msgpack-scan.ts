/**
 * The structural check (PROTOCOL §2.3): walks raw msgpack bytes without recursion and enforces
 * every codec limit and rule of the value's bytes. It accepts exactly one msgpack value built from
 * the plain families (nil, bool, int, float, str, bin, array, map with str keys) and nothing after
 * it. `scanMsgpack` only checks; `readMsgpack` builds the value in the same walk, so what it
 * builds has passed every check before it is handed on, and a refused message is refused at the
 * same byte with the same error either way.
 */
import { isUtf8 } from 'node:buffer';
import { ProtocolError, type Outcome } from './errors.ts';

export interface CodecLimits {
  /** Longest message, in bytes (PROTOCOL §2.2). */
  maxBytes: number;
  /** Deepest nesting of arrays and maps; a top-level map is depth 1. */
  maxDepth: number;
  /** Longest str payload, in bytes. */
  maxStringBytes: number;
  /** Longest bin payload, in bytes. */
  maxBinBytes: number;
  /** Most entries in one array or one map. */
  maxEntries: number;
  /** Most values in the whole message, map keys included. */
  maxElements: number;
}

export const DEFAULT_CODEC_LIMITS: Readonly<CodecLimits> = Object.freeze({
  maxBytes: 1024 * 1024,
  maxDepth: 32,
  maxStringBytes: 256 * 1024,
  maxBinBytes: 256 * 1024,
  maxEntries: 65_536,
  maxElements: 131_072,
});

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
// '__proto__', 'constructor', 'prototype' as bytes (PROTOCOL §2.4).
const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'].map((k) => Buffer.from(k, 'latin1'));

/** Past this many keys a map's duplicate check switches from pairwise compares to a Set. */
const LINEAR_KEYS = 16;

/** The keys of one open map (PROTOCOL §2.4: unique), reused per depth. */
class MapKeys {
  /** start, end byte offsets of each key's payload, in order; `used` of them are this map's. */
  readonly ranges: number[] = [];
  used = 0;
  set: Set<string> | null = null;

  reset(): void {
    this.used = 0; // not ranges.length = 0, which costs more than the rest of the map's keys
    this.set = null;
  }

  add(start: number, end: number): void {
    this.ranges[this.used] = start;
    this.ranges[this.used + 1] = end;
    this.used += 2;
  }
}

/**
 * The bytes-level cursor; a class so the hot loop keeps monomorphic field access. The stacks are
 * indexed by depth and only ever grow (`depth` says how much of them is live), so a scan
 * allocates nothing per value.
 */
class Scanner {
  pos = 0;
  elements = 0;
  /** How many containers are open. */
  depth = 0;
  /** Per open container: how many items it still expects (a map counts keys and values). */
  readonly remaining: number[] = [];
  readonly isMap: boolean[] = [];
  /** Per open container: how many items it held (for array indexes in float paths). */
  readonly items: number[] = [];
  /** Per depth: the keys of the map open there. */
  readonly keys: MapKeys[] = [];
  /**
   * `readMsgpack` only: the value read so far, the container open at each depth, and, for a map,
   * the key its next value goes under.
   */
  root: unknown = undefined;
  readonly containers: Array<unknown[] | Record<string, unknown>> = [];
  readonly nextKey: string[] = [];
  /** The str `skipBytes` has just read, when building. */
  lastString = '';
  /** The bytes as a Buffer, for the native string decoders, and as a DataView, for numbers. */
  readonly text: Buffer | null;
  readonly view: DataView | null;

  constructor(
    readonly bytes: Uint8Array,
    readonly limits: CodecLimits,
    /** Collects the paths of floats at depth 1–4 when given (see `FloatPaths`). */
    readonly floats: string[] | null = null,
    /** Builds the value as well (`readMsgpack`). */
    readonly build = false,
  ) {
    this.text = build ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
    this.view = build ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
  }
}

function truncated(): ProtocolError {
  return new ProtocolError('malformed', 'the message ends inside a value');
}

/**
 * Where floats sit near the top of a value, as `/`-joined paths of map keys and array indexes:
 * `0/id` is the `id` field of the first body of a batch, `versions/1` the second offered version,
 * `0/events/2/seq` the sequence of the third event of an `events` body. Only depths 1 to 4 are
 * recorded: enough for the integer fields of frame bodies, their events and handshake messages,
 * which must be msgpack ints, never floats (PROTOCOL §2.1).
 */
export type FloatPaths = string[];
const FLOAT_PATH_DEPTH = 4;

export function scanMsgpack(
  bytes: Uint8Array,
  limits: CodecLimits,
  floats: FloatPaths | null = null,
): ProtocolError | null {
  return precheck(bytes, limits) ?? walk(new Scanner(bytes, limits, floats));
}

/**
 * `scanMsgpack` that also builds the value, in the same walk: maps as plain objects, arrays,
 * strings, numbers (int64 within ±(2^53−1) as numbers), booleans, null, and bin as a view of
 * `bytes` (not a copy). The value is handed on only when every check has passed.
 */
export function readMsgpack(
  bytes: Uint8Array,
  limits: CodecLimits,
  floats: FloatPaths | null = null,
): Outcome<unknown> {
  const early = precheck(bytes, limits);
  if (early) return { ok: false, error: early };
  const s = new Scanner(bytes, limits, floats, true);
  const error = walk(s);
  return error ? { ok: false, error } : { ok: true, value: s.root };
}

/** The message as a whole: not over `maxBytes`, not empty. */
function precheck(bytes: Uint8Array, limits: CodecLimits): ProtocolError | null {
  if (bytes.length > limits.maxBytes) {
    return new ProtocolError(
      'frame_too_large',
      `message of ${bytes.length} bytes exceeds ${limits.maxBytes}`,
    );
  }
  return bytes.length === 0 ? new ProtocolError('malformed', 'empty message') : null;
}

// Far beyond any message (a small integer, like the real limits, so the scanner's field accesses
// keep one representation).
const NO_LIMIT = 0x3fff_ffff;
const UNBOUNDED: Readonly<CodecLimits> = Object.freeze({
  maxBytes: NO_LIMIT,
  maxDepth: NO_LIMIT,
  maxStringBytes: NO_LIMIT,
  maxBinBytes: NO_LIMIT,
  maxEntries: NO_LIMIT,
  maxElements: NO_LIMIT,
});

/**
 * How many values (map keys included) one well-formed msgpack value holds: what it adds toward
 * `maxElements` when it is placed inside a larger value. A sender uses it to split a batch
 * (PROTOCOL §4.2 rule 4); NaN for bytes that are not exactly one value.
 */
export function countValues(bytes: Uint8Array): number {
  const s = new Scanner(bytes, UNBOUNDED);
  return bytes.length > 0 && walk(s) === null ? s.elements : NaN;
}

/**
 * The iterative walk of PROTOCOL §2.3 over exactly one top-level value. Scalars that carry no
 * payload are settled in the loop itself; everything else goes to `scanValue` or `scanKey`.
 */
function walk(s: Scanner): ProtocolError | null {
  const { bytes, limits, remaining, isMap } = s;
  const { maxElements } = limits;
  let pending = 1; // the single top-level value
  for (;;) {
    let depth = s.depth;
    while (depth > 0 && remaining[depth - 1] === 0) depth -= 1;
    s.depth = depth;
    let isKey = false;
    if (depth > 0) {
      const left = remaining[depth - 1] as number;
      isKey = isMap[depth - 1] === true && (left & 1) === 0;
      remaining[depth - 1] = left - 1;
    } else if (pending === 0) break;
    else pending = 0;
    if (++s.elements > maxElements) {
      return new ProtocolError('too_many_elements', `more than ${maxElements} values`);
    }
    if (s.pos >= bytes.length) return truncated();
    const b = bytes[s.pos] as number;
    if (isKey) {
      const error = scanKey(s, b, depth - 1);
      if (error) return error;
      continue;
    }
    if (s.floats !== null && (b === 0xca || b === 0xcb) && depth > 0 && depth <= FLOAT_PATH_DEPTH)
      noteFloat(s, depth);
    s.pos += 1;
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) {
      if (s.build) place(s, b <= 0x7f ? b : b >= 0xe0 ? b - 0x100 : b === 0xc0 ? null : b === 0xc3);
      continue;
    }
    const error = scanValue(s, b);
    if (error) return error;
  }
  if (s.pos !== bytes.length) {
    return new ProtocolError('malformed', `${bytes.length - s.pos} trailing bytes after the value`);
  }
  return null;
}

/** Records the path of a float about to be read at depth 1 to 4 (see `FloatPaths`). */
function noteFloat(s: Scanner, depth: number): void {
  const parts: string[] = [];
  for (let level = 0; level < depth; level += 1) {
    if (s.isMap[level]) {
      const { ranges, used } = s.keys[level] as MapKeys;
      const end = ranges[used - 1] as number;
      parts.push(Buffer.from(s.bytes.subarray(ranges[used - 2], end)).toString('utf8'));
    } else {
      parts.push(String((s.items[level] as number) - (s.remaining[level] as number) - 1));
    }
  }
  (s.floats as string[]).push(parts.join('/'));
}

/** A big-endian length of `size` bytes at the cursor, which moves past it (presence checked). */
function readLength(s: Scanner, size: number): number {
  const { bytes } = s;
  const at = s.pos;
  s.pos = at + size;
  if (size === 1) return bytes[at] as number;
  if (size === 2) return ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
  const low =
    ((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number);
  return (bytes[at] as number) * 0x100_0000 + low;
}

/** A map key: a str only (PROTOCOL §2.4), never one of the forbidden names, never repeated. */
function scanKey(s: Scanner, b: number, level: number): ProtocolError | null {
  let length: number;
  if (b >= 0xa0 && b <= 0xbf) {
    s.pos += 1;
    length = b & 0x1f;
  } else if (b === 0xd9 || b === 0xda || b === 0xdb) {
    const size = b === 0xd9 ? 1 : b === 0xda ? 2 : 4;
    s.pos += 1;
    if (s.pos + size > s.bytes.length) return truncated();
    length = readLength(s, size);
  } else {
    return new ProtocolError('non_string_key', `map key of type 0x${b.toString(16)}`);
  }
  const error = skipBytes(s, length, true);
  if (error) return error;
  const start = s.pos - length;
  if (length === 9 || length === 11) {
    for (const forbidden of FORBIDDEN_KEYS) {
      if (sameBytes(s.bytes, start, forbidden, length)) {
        return new ProtocolError('forbidden_key', `map key "${forbidden.toString('latin1')}"`);
      }
    }
  }
  const repeated = rememberKey(s, s.keys[level] as MapKeys, start, s.pos);
  if (s.build) s.nextKey[level] = s.lastString;
  return repeated;
}

/**
 * Short ASCII strings recently read, by a hash of their bytes. A message's map keys repeat in
 * every item of a list, and so do many values (a type, an action, a reason): a string found here
 * is the same string, with no decoding again. Only ASCII is kept, and bytes equal to ASCII text
 * are valid UTF-8. Holds at most `STRING_SLOTS` strings of at most `CACHED_BYTES` bytes.
 */
const STRING_SLOTS = 1024;
const CACHED_BYTES = 16;
const STRING_CACHE: Array<string | undefined> = new Array<string | undefined>(STRING_SLOTS).fill(undefined);

/** The str payload between `start` and `end` as a string, or null when it is not valid UTF-8. */
function stringAt(s: Scanner, start: number, end: number): string | null {
  const { bytes } = s;
  const length = end - start;
  if (length === 0) return '';
  if (length > CACHED_BYTES) return decodeUtf8(s, start, end);
  const slot = (length * 31 + (bytes[start] as number) * 7 + (bytes[end - 1] as number)) & (STRING_SLOTS - 1);
  const cached = STRING_CACHE[slot];
  if (cached !== undefined && cached.length === length) {
    let i = 0;
    while (i < length && cached.charCodeAt(i) === bytes[start + i]) i += 1;
    if (i === length) return cached;
  }
  const text = decodeUtf8(s, start, end);
  // Valid UTF-8 decodes to as many UTF-16 units as it has bytes only when every byte is ASCII.
  if (text !== null && text.length === length) STRING_CACHE[slot] = text;
  return text;
}

/**
 * Decodes natively, then checks: the decoder writes U+FFFD for every byte sequence that is not
 * UTF-8 (a stray continuation byte, an overlong form, an encoded surrogate, a code point past
 * U+10FFFF, a sequence cut short), so a string without one came from valid UTF-8. A string with
 * one may have held it honestly (EF BF BD); the full check settles those.
 */
function decodeUtf8(s: Scanner, start: number, end: number): string | null {
  const text = (s.text as Buffer).toString('utf8', start, end);
  if (text.indexOf('\uFFFD') === -1 || isUtf8(s.bytes.subarray(start, end))) return text;
  return null;
}

/** `readMsgpack`: puts a value just read into the container open at the current depth. */
function place(s: Scanner, value: unknown): void {
  const depth = s.depth;
  if (depth === 0) s.root = value;
  else if (s.isMap[depth - 1]) {
    (s.containers[depth - 1] as Record<string, unknown>)[s.nextKey[depth - 1] as string] = value;
  } else (s.containers[depth - 1] as unknown[]).push(value);
}

function sameBytes(bytes: Uint8Array, start: number, other: Uint8Array, length: number): boolean {
  if (other.length !== length) return false;
  for (let i = 0; i < length; i += 1) if (bytes[start + i] !== other[i]) return false;
  return true;
}

/** PROTOCOL §2.4: a key may appear once per map; a repeat is `duplicate_key`, never last-wins. */
function rememberKey(s: Scanner, keys: MapKeys, start: number, end: number): ProtocolError | null {
  const { bytes } = s;
  const { ranges, used } = keys;
  const length = end - start;
  if (keys.set === null) {
    for (let i = 0; i < used; i += 2) {
      const from = ranges[i] as number;
      if ((ranges[i + 1] as number) - from !== length) continue;
      let same = true;
      for (let j = 0; j < length && same; j += 1) same = bytes[from + j] === bytes[start + j];
      if (same) return duplicateKey(bytes, start, end);
    }
    keys.add(start, end);
    if (keys.used > LINEAR_KEYS * 2) {
      keys.set = new Set();
      for (let i = 0; i < keys.used; i += 2)
        keys.set.add(latin1(bytes, ranges[i] as number, ranges[i + 1] as number));
    }
    return null;
  }
  keys.add(start, end); // the last key is what a float path names
  const text = latin1(bytes, start, end);
  if (keys.set.has(text)) return duplicateKey(bytes, start, end);
  keys.set.add(text);
  return null;
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', start, end);
}

function duplicateKey(bytes: Uint8Array, start: number, end: number): ProtocolError {
  const shown = Buffer.from(bytes.subarray(start, Math.min(end, start + 32))).toString('utf8');
  return new ProtocolError('duplicate_key', `map key "${shown}" appears twice`);
}

/**
 * The rest of one value whose type byte `b` the cursor has just passed (PROTOCOL §2.3): skips
 * scalar payloads and opens containers. Payload-free scalars never get here (see `walk`).
 */
function scanValue(s: Scanner, b: number): ProtocolError | null {
  if (b >= 0xa0 && b <= 0xbf) return payload(s, b & 0x1f, true);
  if (b >= 0x90 && b <= 0x9f) return openContainer(s, b & 0x0f, false);
  if (b >= 0x80 && b <= 0x8f) return openContainer(s, b & 0x0f, true);
  switch (b) {
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return sizedPayload(s, b === 0xc4 ? 1 : b === 0xc5 ? 2 : 4, false);
    case 0xd9:
    case 0xda:
    case 0xdb:
      return sizedPayload(s, b === 0xd9 ? 1 : b === 0xda ? 2 : 4, true);
    case 0xdc:
    case 0xdd:
      return sizedContainer(s, b === 0xdc ? 2 : 4, false);
    case 0xde:
    case 0xdf:
      return sizedContainer(s, b === 0xde ? 2 : 4, true);
    case 0xca:
    case 0xd2:
    case 0xce:
      return fixedNumber(s, 4, b);
    case 0xcb:
      return fixedNumber(s, 8, b);
    case 0xcc:
    case 0xd0:
      return fixedNumber(s, 1, b);
    case 0xcd:
    case 0xd1:
      return fixedNumber(s, 2, b);
    case 0xcf:
    case 0xd3:
      return scanInt64(s, b === 0xd3);
    case 0xc1:
      return new ProtocolError('malformed', 'the reserved byte 0xc1');
    default: // 0xc7–0xc9 ext 8/16/32, 0xd4–0xd8 fixext
      return new ProtocolError('unsupported_type', `ext type (byte 0x${b.toString(16)})`);
  }
}

/** A number of `n` bytes after its type byte `b` (not int64, see `scanInt64`). */
function fixedNumber(s: Scanner, n: number, b: number): ProtocolError | null {
  const at = s.pos;
  if (at + n > s.bytes.length) return truncated();
  s.pos = at + n;
  if (s.build) place(s, numberAt(s.view as DataView, at, b));
  return null;
}

function numberAt(view: DataView, at: number, b: number): number {
  switch (b) {
    case 0xca:
      return view.getFloat32(at);
    case 0xcb:
      return view.getFloat64(at);
    case 0xcc:
      return view.getUint8(at);
    case 0xcd:
      return view.getUint16(at);
    case 0xce:
      return view.getUint32(at);
    case 0xd0:
      return view.getInt8(at);
    case 0xd1:
      return view.getInt16(at);
    default: // 0xd2
      return view.getInt32(at);
  }
}

function sizedPayload(s: Scanner, size: number, isStr: boolean): ProtocolError | null {
  if (s.pos + size > s.bytes.length) return truncated();
  return payload(s, readLength(s, size), isStr);
}

/** A str or bin value's payload: checked, and read as a string or a view of its bytes. */
function payload(s: Scanner, length: number, isStr: boolean): ProtocolError | null {
  const error = skipBytes(s, length, isStr);
  if (error !== null || !s.build) return error;
  const start = s.pos - length;
  place(s, isStr ? s.lastString : s.bytes.subarray(start, s.pos));
  return null;
}

function skipBytes(s: Scanner, length: number, isStr: boolean): ProtocolError | null {
  const limit = isStr ? s.limits.maxStringBytes : s.limits.maxBinBytes;
  if (length > limit) {
    return new ProtocolError(
      'string_too_long',
      `${isStr ? 'str' : 'bin'} of ${length} bytes exceeds ${limit}`,
    );
  }
  const start = s.pos;
  if (start + length > s.bytes.length) return truncated();
  s.pos = start + length;
  if (!isStr) return null;
  if (s.build) {
    const text = stringAt(s, start, s.pos);
    if (text !== null) {
      s.lastString = text;
      return null;
    }
  } else if (isUtf8At(s.bytes, start, s.pos)) return null;
  return new ProtocolError('invalid_utf8', `str at byte ${start} is not valid UTF-8`);
}

/** PROTOCOL §2.6: every str is valid UTF-8 (no surrogates, no overlong forms). ASCII fast path. */
function isUtf8At(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start <= 64) {
    let i = start;
    while (i < end && (bytes[i] as number) < 0x80) i += 1;
    if (i === end) return true;
    // Everything before i is ASCII, so i starts a character: the native check takes the rest.
    return isUtf8(bytes.subarray(i, end));
  }
  return isUtf8(bytes.subarray(start, end));
}

function sizedContainer(s: Scanner, size: number, isMap: boolean): ProtocolError | null {
  if (s.pos + size > s.bytes.length) return truncated();
  return openContainer(s, readLength(s, size), isMap);
}

function openContainer(s: Scanner, entries: number, isMap: boolean): ProtocolError | null {
  if (entries > s.limits.maxEntries) {
    const kind = isMap ? 'map' : 'array';
    return new ProtocolError(
      'collection_too_large',
      `${kind} of ${entries} entries exceeds ${s.limits.maxEntries}`,
    );
  }
  const level = s.depth;
  if (level + 1 > s.limits.maxDepth) {
    return new ProtocolError('depth_exceeded', `nesting deeper than ${s.limits.maxDepth}`);
  }
  const items = isMap ? entries * 2 : entries;
  // Every item takes at least one byte: a count beyond the bytes left is a truncation.
  if (items > s.bytes.length - s.pos) return truncated();
  if (s.build) {
    const container = isMap ? {} : [];
    place(s, container);
    s.containers[level] = container;
  }
  if (items === 0) return null;
  if (isMap) (s.keys[level] ??= new MapKeys()).reset();
  s.remaining[level] = items;
  s.isMap[level] = isMap;
  s.items[level] = items;
  s.depth = level + 1;
  return null;
}

/** int64/uint64 must fit a JS number exactly (PROTOCOL §2.5). */
function scanInt64(s: Scanner, signed: boolean): ProtocolError | null {
  if (s.pos + 8 > s.bytes.length) return truncated();
  const view = new DataView(s.bytes.buffer, s.bytes.byteOffset + s.pos, 8);
  const value = signed ? view.getBigInt64(0) : view.getBigUint64(0);
  s.pos += 8;
  if (value > MAX_SAFE || value < -MAX_SAFE) return outOfRange();
  if (s.build) place(s, Number(value));
  return null;
}

function outOfRange(): ProtocolError {
  return new ProtocolError(
    'integer_out_of_range',
    '64-bit integer outside ±(2^53−1); send large ids as strings',
  );
}
