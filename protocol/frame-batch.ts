/**
 * Batches (PROTOCOL §4.2): how a sender packs frame bodies into session-frame plaintexts. Pure
 * functions, no socket and no timer. Each body is encoded once, when it is queued, so a body that
 * can never be sent fails its caller at once; a batch's plaintext is the msgpack array header
 * followed by the bodies' bytes, byte for byte what encoding the array whole would give.
 */
import { FRAME_OVERHEAD } from './aead.ts';
import { encode, type CodecLimits } from './codec.ts';
import { MAX_FRAME_BODIES, type FrameBody } from './frames.ts';
import type { ProtocolError } from './errors.ts';
import { countValues, scanMsgpack } from './msgpack-scan.ts';

/** What one frame may hold (PROTOCOL §4.2 rule 4); the sender's own limits stand in for its peer's. */
export interface BatchBounds {
  /** Most bodies in one frame, 1 to `MAX_FRAME_BODIES`. */
  maxBodies: number;
  /** Longest plaintext: the codec's `maxBytes`, and short enough that the frame fits `maxFrameBytes`. */
  maxPlaintext: number;
  /** Most values in one plaintext, the array itself included (the codec's `maxElements`). */
  maxElements: number;
  /** Deepest nesting inside one body: the batch array takes one level of the codec's `maxDepth`. */
  maxBodyDepth: number;
  /**
   * The codec's per-value limits (PROTOCOL §2.2): a body holding a longer str or bin, or a larger
   * array or map, would close the link at the peer; unchecked when absent.
   */
  values?: Pick<CodecLimits, 'maxStringBytes' | 'maxBinBytes' | 'maxEntries'>;
}

export function batchBounds(
  limits: CodecLimits,
  maxFrameBytes: number = Number.MAX_SAFE_INTEGER,
  maxBodies: number = MAX_FRAME_BODIES,
): BatchBounds {
  if (!Number.isSafeInteger(maxBodies) || maxBodies < 1 || maxBodies > MAX_FRAME_BODIES) {
    throw new RangeError(`maxBodies must be an integer from 1 to ${MAX_FRAME_BODIES}, got ${maxBodies}`);
  }
  if (limits.maxDepth < 2)
    throw new RangeError('maxDepth must leave a level for the batch array (2 or more)');
  const maxPlaintext = Math.min(limits.maxBytes, maxFrameBytes - FRAME_OVERHEAD);
  if (maxPlaintext < 2) throw new RangeError(`a ${maxFrameBytes}-byte frame cannot hold a frame body`);
  const { maxStringBytes, maxBinBytes, maxEntries } = limits;
  return {
    maxBodies,
    maxPlaintext,
    maxElements: limits.maxElements,
    maxBodyDepth: limits.maxDepth - 1,
    values: { maxStringBytes, maxBinBytes, maxEntries },
  };
}

/** One queued body: its msgpack bytes and, once someone needs it, how many values it holds. */
export interface EncodedBody {
  readonly bytes: Uint8Array;
  /** -1 until counted: only a batch long enough to reach `maxElements` needs the count. */
  values: number;
}

/**
 * Encodes one body for a batch. Throws TypeError for a body with no plain msgpack form (or one
 * nested too deep) and RangeError for one that no frame within `bounds` can carry.
 */
export function encodeBody(body: FrameBody, bounds: BatchBounds): EncodedBody {
  const bytes = encode(body, bounds.maxBodyDepth);
  const encoded: EncodedBody = { bytes, values: -1 };
  const plaintext = arrayHeaderBytes(1) + bytes.length;
  if (plaintext > bounds.maxPlaintext) {
    throw new RangeError(`frame body of ${bytes.length} bytes exceeds the ${bounds.maxPlaintext}-byte limit`);
  }
  if (plaintext > bounds.maxElements && 1 + valuesOf(encoded) > bounds.maxElements) {
    throw new RangeError(`frame body of ${valuesOf(encoded)} values exceeds ${bounds.maxElements}`);
  }
  const overLimit = bounds.values && valueOverLimit(bytes, bounds.values);
  if (overLimit) throw new RangeError(`frame body: ${overLimit.message}`);
  return encoded;
}

/**
 * A str, bin, array or map of `bytes` past its limit (PROTOCOL §2.2), which the peer's pre-scan
 * would refuse with `string_too_long` or `collection_too_large`. Scanned only when the body is
 * long enough to hold one: a value over a limit of n takes more than n bytes.
 */
function valueOverLimit(bytes: Uint8Array, limits: NonNullable<BatchBounds['values']>): ProtocolError | null {
  const { maxStringBytes, maxBinBytes, maxEntries } = limits;
  if (bytes.length <= Math.min(maxStringBytes, maxBinBytes, maxEntries)) return null;
  return scanMsgpack(bytes, { ...UNCHECKED, maxStringBytes, maxBinBytes, maxEntries });
}

/** Limits that a body which encoded at all always meets; only the per-value ones are scanned. */
const UNCHECKED = Object.freeze({ maxBytes: 0x3fff_ffff, maxDepth: 0x3fff_ffff, maxElements: 0x3fff_ffff });

function valuesOf(body: EncodedBody): number {
  if (body.values < 0) body.values = countValues(body.bytes);
  return body.values;
}

/** The msgpack array header's length for `count` entries: fixarray, then array16. */
export function arrayHeaderBytes(count: number): number {
  return count <= 15 ? 1 : 3;
}

/** The plaintext of one frame: the array header, then each body's bytes, in order. */
export function batchPlaintext(bodies: readonly Uint8Array[]): Uint8Array {
  const count = bodies.length;
  if (count > 0xffff) throw new RangeError(`a batch of ${count} bodies`);
  let length = arrayHeaderBytes(count);
  for (const body of bodies) length += body.length;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  if (count <= 15) out[at++] = 0x90 | count;
  else {
    out[at++] = 0xdc;
    out[at++] = count >>> 8;
    out[at++] = count & 0xff;
  }
  for (const body of bodies) {
    out.set(body, at);
    at += body.length;
  }
  return out;
}

/**
 * Splits queued bodies, in order, into as few batches as `bounds` allow: a batch closes when one
 * more body would pass the body count, the plaintext bytes or the value count. Every body must
 * fit a frame alone (`encodeBody` checked it).
 */
export function splitBatches(bodies: readonly EncodedBody[], bounds: BatchBounds): EncodedBody[][] {
  const batches: EncodedBody[][] = [];
  let batch: EncodedBody[] = [];
  let bytes = 0;
  let values = -1; // the batch's values with the array, counted once its bytes could reach the limit
  for (const body of bodies) {
    const count = batch.length + 1;
    const plaintext = arrayHeaderBytes(count) + bytes + body.bytes.length;
    let fits = count <= bounds.maxBodies && plaintext <= bounds.maxPlaintext;
    // Every value takes at least one byte, so a plaintext within maxElements bytes needs no count.
    if (fits && plaintext > bounds.maxElements) {
      if (values < 0) values = batch.reduce((sum, queued) => sum + valuesOf(queued), 1);
      fits = values + valuesOf(body) <= bounds.maxElements;
    }
    if (!fits && batch.length > 0) {
      batches.push(batch);
      batch = [];
      bytes = 0;
      values = -1;
    }
    batch.push(body);
    bytes += body.bytes.length;
    if (values >= 0) values += valuesOf(body);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
