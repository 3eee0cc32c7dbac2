/**
 * The structural pre-scan (PROTOCOL §2.3): walks raw msgpack bytes without recursion and without
 * building any value, and enforces every codec limit before msgpackr sees a byte. It accepts
 * exactly one msgpack value built from the plain families (nil, bool, int, float, str, bin, array,
 * map with str keys) and nothing after it.
 */
import { isUtf8 } from 'node:buffer';
import { ProtocolError } from './errors.ts';

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
  /** start, end byte offsets of each key's payload, in order. */
  readonly ranges: number[] = [];
  set: Set<string> | null = null;

  reset(): void {
    this.ranges.length = 0;
    this.set = null;
  }
}

/** The bytes-level cursor; a class so the hot loop keeps monomorphic field access. */
class Scanner {
  pos = 0;
  elements = 0;
  /** Per open container: how many items it still expects (a map counts keys and values). */
  readonly remaining: number[] = [];
  readonly isMap: boolean[] = [];
  /** Per open container: how many items it held (for array indexes in float paths). */
  readonly items: number[] = [];
  /** Per depth: the keys of the map open there. */
  readonly keys: MapKeys[] = [];

  constructor(
    readonly bytes: Uint8Array,
    readonly view: DataView,
    readonly limits: CodecLimits,
    /** Collects the paths of floats at depth 1–2 when given (see `FloatPaths`). */
    readonly floats: string[] | null = null,
  ) {}

  need(n: number): ProtocolError | null {
    return this.pos + n > this.bytes.length ? truncated() : null;
  }

  uint(size: 1 | 2 | 4): number {
    const at = this.pos;
    this.pos += size;
    if (size === 1) return this.bytes[at] as number;
    return size === 2 ? this.view.getUint16(at) : this.view.getUint32(at);
  }
}

function truncated(): ProtocolError {
  return new ProtocolError('malformed', 'the message ends inside a value');
}

/**
 * Where floats sit near the top of a value, as `/`-joined paths of map keys and array indexes:
 * `0/id` is the `id` field of the first body of a batch, `versions/1` the second offered version.
 * Only depths 1 and 2 are recorded: enough for the integer fields of frame bodies and handshake
 * messages, which must be msgpack ints, never floats (PROTOCOL §2.1).
 */
export type FloatPaths = string[];

export function scanMsgpack(
  bytes: Uint8Array,
  limits: CodecLimits,
  floats: FloatPaths | null = null,
): ProtocolError | null {
  if (bytes.length > limits.maxBytes) {
    return new ProtocolError(
      'frame_too_large',
      `message of ${bytes.length} bytes exceeds ${limits.maxBytes}`,
    );
  }
  if (bytes.length === 0) return new ProtocolError('malformed', 'empty message');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return walk(new Scanner(bytes, view, limits, floats));
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
  const s = new Scanner(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), UNBOUNDED);
  return bytes.length > 0 && walk(s) === null ? s.elements : NaN;
}

/** The iterative walk of PROTOCOL §2.3 over exactly one top-level value. */
function walk(s: Scanner): ProtocolError | null {
  const { bytes, limits } = s;
  let pending = 1; // the single top-level value
  while (pending > 0 || s.remaining.length > 0) {
    const depth = s.remaining.length;
    if (depth > 0 && s.remaining[depth - 1] === 0) {
      s.remaining.pop();
      s.isMap.pop();
      s.items.pop();
      continue;
    }
    const isKey = depth > 0 && s.isMap[depth - 1] === true && (s.remaining[depth - 1] as number) % 2 === 0;
    if (depth > 0) s.remaining[depth - 1] = (s.remaining[depth - 1] as number) - 1;
    else pending = 0;
    if (++s.elements > limits.maxElements) {
      return new ProtocolError('too_many_elements', `more than ${limits.maxElements} values`);
    }
    if (s.floats !== null && !isKey && depth > 0 && depth <= 2) noteFloat(s, depth);
    const error = isKey ? scanKey(s, depth - 1) : scanValue(s);
    if (error) return error;
  }
  if (s.pos !== bytes.length) {
    return new ProtocolError('malformed', `${bytes.length - s.pos} trailing bytes after the value`);
  }
  return null;
}

/** Records the path of a float about to be read at depth 1 or 2 (see `FloatPaths`). */
function noteFloat(s: Scanner, depth: number): void {
  const b = s.bytes[s.pos];
  if (b !== 0xca && b !== 0xcb) return;
  const parts: string[] = [];
  for (let level = 0; level < depth; level += 1) {
    if (s.isMap[level]) {
      const ranges = (s.keys[level] as MapKeys).ranges;
      const end = ranges[ranges.length - 1] as number;
      parts.push(Buffer.from(s.bytes.subarray(ranges[ranges.length - 2], end)).toString('utf8'));
    } else {
      parts.push(String((s.items[level] as number) - (s.remaining[level] as number) - 1));
    }
  }
  (s.floats as string[]).push(parts.join('/'));
}

/** A map key: a str only (PROTOCOL §2.4), never one of the forbidden names, never repeated. */
function scanKey(s: Scanner, level: number): ProtocolError | null {
  const err = s.need(1);
  if (err) return err;
  const b = s.bytes[s.pos] as number;
  const isStr = (b >= 0xa0 && b <= 0xbf) || b === 0xd9 || b === 0xda || b === 0xdb;
  if (!isStr) return new ProtocolError('non_string_key', `map key of type 0x${b.toString(16)}`);
  const start = s.pos;
  const error = scanValue(s);
  if (error) return error;
  const headerLength = b <= 0xbf ? 1 : b === 0xd9 ? 2 : b === 0xda ? 3 : 5;
  const key = s.bytes.subarray(start + headerLength, s.pos);
  if (key.length === 9 || key.length === 11) {
    for (const forbidden of FORBIDDEN_KEYS) {
      if (Buffer.compare(key, forbidden) === 0) {
        return new ProtocolError('forbidden_key', `map key "${forbidden.toString('latin1')}"`);
      }
    }
  }
  return rememberKey(s, s.keys[level] as MapKeys, start + headerLength, s.pos);
}

/** PROTOCOL §2.4: a key may appear once per map; a repeat is `duplicate_key`, never last-wins. */
function rememberKey(s: Scanner, keys: MapKeys, start: number, end: number): ProtocolError | null {
  const { bytes } = s;
  const { ranges } = keys;
  const length = end - start;
  if (keys.set === null) {
    for (let i = 0; i < ranges.length; i += 2) {
      const from = ranges[i] as number;
      if ((ranges[i + 1] as number) - from !== length) continue;
      let same = true;
      for (let j = 0; j < length && same; j += 1) same = bytes[from + j] === bytes[start + j];
      if (same) return duplicateKey(bytes, start, end);
    }
    ranges.push(start, end);
    if (ranges.length > LINEAR_KEYS * 2) {
      keys.set = new Set();
      for (let i = 0; i < ranges.length; i += 2)
        keys.set.add(latin1(bytes, ranges[i] as number, ranges[i + 1] as number));
    }
    return null;
  }
  ranges.push(start, end); // the last key is what a float path names
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

/** One value's header; skips scalar payloads and opens containers (PROTOCOL §2.3). */
function scanValue(s: Scanner): ProtocolError | null {
  const err = s.need(1);
  if (err) return err;
  const b = s.uint(1);
  if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return null;
  if (b >= 0xa0 && b <= 0xbf) return skipBytes(s, b & 0x1f, 'str');
  if (b >= 0x90 && b <= 0x9f) return openContainer(s, b & 0x0f, false);
  if (b >= 0x80 && b <= 0x8f) return openContainer(s, b & 0x0f, true);
  switch (b) {
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return sizedPayload(s, b - 0xc4, 'bin');
    case 0xd9:
    case 0xda:
    case 0xdb:
      return sizedPayload(s, b - 0xd9, 'str');
    case 0xdc:
    case 0xdd:
      return sizedContainer(s, b === 0xdc ? 2 : 4, false);
    case 0xde:
    case 0xdf:
      return sizedContainer(s, b === 0xde ? 2 : 4, true);
    case 0xca:
    case 0xd2:
    case 0xce:
      return skipFixed(s, 4);
    case 0xcb:
      return skipFixed(s, 8);
    case 0xcc:
    case 0xd0:
      return skipFixed(s, 1);
    case 0xcd:
    case 0xd1:
      return skipFixed(s, 2);
    case 0xcf:
    case 0xd3:
      return scanInt64(s, b === 0xd3);
    case 0xc1:
      return new ProtocolError('malformed', 'the reserved byte 0xc1');
    default: // 0xc7–0xc9 ext 8/16/32, 0xd4–0xd8 fixext
      return new ProtocolError('unsupported_type', `ext type (byte 0x${b.toString(16)})`);
  }
}

function skipFixed(s: Scanner, n: number): ProtocolError | null {
  const err = s.need(n);
  if (err) return err;
  s.pos += n;
  return null;
}

function sizedPayload(s: Scanner, sizeIndex: number, kind: 'str' | 'bin'): ProtocolError | null {
  const size = ([1, 2, 4] as const)[sizeIndex] as 1 | 2 | 4;
  const err = s.need(size);
  if (err) return err;
  return skipBytes(s, s.uint(size), kind);
}

function skipBytes(s: Scanner, length: number, kind: 'str' | 'bin'): ProtocolError | null {
  const limit = kind === 'str' ? s.limits.maxStringBytes : s.limits.maxBinBytes;
  if (length > limit)
    return new ProtocolError('string_too_long', `${kind} of ${length} bytes exceeds ${limit}`);
  const start = s.pos;
  const error = skipFixed(s, length);
  if (error || kind === 'bin' || isUtf8At(s.bytes, start, s.pos)) return error;
  return new ProtocolError('invalid_utf8', `str at byte ${start} is not valid UTF-8`);
}

/** PROTOCOL §2.6: every str is valid UTF-8 (no surrogates, no overlong forms). ASCII fast path. */
function isUtf8At(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start <= 64) {
    let i = start;
    while (i < end && (bytes[i] as number) < 0x80) i += 1;
    if (i === end) return true;
  }
  return isUtf8(bytes.subarray(start, end));
}

function sizedContainer(s: Scanner, size: 2 | 4, isMap: boolean): ProtocolError | null {
  const err = s.need(size);
  if (err) return err;
  return openContainer(s, s.uint(size), isMap);
}

function openContainer(s: Scanner, entries: number, isMap: boolean): ProtocolError | null {
  if (entries > s.limits.maxEntries) {
    const kind = isMap ? 'map' : 'array';
    return new ProtocolError(
      'collection_too_large',
      `${kind} of ${entries} entries exceeds ${s.limits.maxEntries}`,
    );
  }
  if (s.remaining.length + 1 > s.limits.maxDepth) {
    return new ProtocolError('depth_exceeded', `nesting deeper than ${s.limits.maxDepth}`);
  }
  const items = isMap ? entries * 2 : entries;
  // Every item takes at least one byte: a count beyond the bytes left is a truncation.
  if (items > s.bytes.length - s.pos) return truncated();
  if (items === 0) return null;
  if (isMap) {
    const level = s.remaining.length;
    const keys = (s.keys[level] ??= new MapKeys());
    keys.reset();
  }
  s.remaining.push(items);
  s.isMap.push(isMap);
  s.items.push(items);
  return null;
}

/** int64/uint64 must fit a JS number exactly (PROTOCOL §2.5). */
function scanInt64(s: Scanner, signed: boolean): ProtocolError | null {
  const err = s.need(8);
  if (err) return err;
  const value = signed ? s.view.getBigInt64(s.pos) : s.view.getBigUint64(s.pos);
  s.pos += 8;
  return value > MAX_SAFE || value < -MAX_SAFE ? outOfRange() : null;
}

function outOfRange(): ProtocolError {
  return new ProtocolError(
    'integer_out_of_range',
    '64-bit integer outside ±(2^53−1); send large ids as strings',
  );
}
