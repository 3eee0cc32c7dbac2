import { describe, expect, it } from 'vitest';
import { decode, DEFAULT_CODEC_LIMITS, encode } from '../../protocol/codec.ts';
import {
  batchBounds,
  batchPlaintext,
  encodeBody,
  splitBatches,
  type BatchBounds,
  type EncodedBody,
} from '../../protocol/frame-batch.ts';
import { MAX_FRAME_BODIES, type FrameBody } from '../../protocol/frames.ts';
import { countValues } from '../../protocol/msgpack-scan.ts';

const pong = (n: number): FrameBody => ({ t: 'pong', n });
const bounds = (overrides: Partial<BatchBounds> = {}): BatchBounds => ({
  ...batchBounds(DEFAULT_CODEC_LIMITS),
  ...overrides,
});
const encodeAll = (bodies: FrameBody[], b = bounds()): EncodedBody[] =>
  bodies.map((body) => encodeBody(body, b));
const sizes = (batches: EncodedBody[][]): number[] => batches.map((batch) => batch.length);
const pongs = (count: number): FrameBody[] => Array.from({ length: count }, (_, i) => pong(i));

describe('a batch plaintext', () => {
  it.each([1, 15, 16, 256])('is byte for byte the msgpack array of %i bodies', (count) => {
    const bodies = pongs(count);
    const plaintext = batchPlaintext(bodies.map((body) => encode(body)));
    expect(Buffer.from(plaintext).equals(Buffer.from(encode(bodies)))).toBe(true);
    expect(decode(plaintext)).toEqual({ ok: true, value: bodies });
  });
});

describe('batch bounds', () => {
  it('leave room for the 24-byte envelope within the frame limit and a level for the array', () => {
    expect(batchBounds(DEFAULT_CODEC_LIMITS, 1000)).toEqual({
      maxBodies: MAX_FRAME_BODIES,
      maxPlaintext: 976,
      maxElements: DEFAULT_CODEC_LIMITS.maxElements,
      maxBodyDepth: DEFAULT_CODEC_LIMITS.maxDepth - 1,
      values: { maxStringBytes: 262_144, maxBinBytes: 262_144, maxEntries: 65_536 },
    });
    expect(batchBounds({ ...DEFAULT_CODEC_LIMITS, maxBytes: 500 }, 1000).maxPlaintext).toBe(500);
  });

  it('refuse a body count outside 1 to 256, a frame too small for a body and a depth of 1', () => {
    expect(() => batchBounds(DEFAULT_CODEC_LIMITS, 1000, 0)).toThrow(RangeError);
    expect(() => batchBounds(DEFAULT_CODEC_LIMITS, 1000, MAX_FRAME_BODIES + 1)).toThrow(RangeError);
    expect(() => batchBounds(DEFAULT_CODEC_LIMITS, 25)).toThrow(RangeError);
    expect(() => batchBounds({ ...DEFAULT_CODEC_LIMITS, maxDepth: 1 })).toThrow(RangeError);
  });
});

describe('encoding a body for a batch', () => {
  it('throws RangeError for a body no frame can carry', () => {
    const big: FrameBody = { t: 'res', id: 1, ok: true, result: 'x'.repeat(100) };
    expect(() => encodeBody(big, bounds({ maxPlaintext: 64 }))).toThrow(RangeError);
  });

  it('throws RangeError for a body with more values than a frame may hold', () => {
    const many: FrameBody = { t: 'res', id: 1, ok: true, result: Array.from({ length: 20 }, () => 0) };
    expect(() => encodeBody(many, bounds({ maxElements: 20 }))).toThrow(RangeError);
  });

  it('throws RangeError for a body whose str, bin or array is over its limit, at the limit not', () => {
    // PROTOCOL §9.6: the peer's pre-scan would close the link (string_too_long, collection_too_large).
    const limits = { maxStringBytes: 64, maxBinBytes: 32, maxEntries: 16 };
    const tight = bounds({ values: limits });
    const res = (result: unknown): FrameBody => ({ t: 'res', id: 1, ok: true, result });
    expect(() => encodeBody(res('é'.repeat(32)), tight)).not.toThrow();
    expect(() => encodeBody(res('a' + 'é'.repeat(32)), tight)).toThrow('str of 65 bytes exceeds 64');
    expect(() => encodeBody(res(new Uint8Array(32)), tight)).not.toThrow();
    expect(() => encodeBody(res(new Uint8Array(33)), tight)).toThrow(RangeError);
    expect(() => encodeBody(res(Array.from({ length: 16 }, () => 0)), tight)).not.toThrow();
    expect(() => encodeBody(res(Array.from({ length: 17 }, () => 0)), tight)).toThrow(
      '17 entries exceeds 16',
    );
  });

  it('throws TypeError for a body nested deeper than a batch leaves room for', () => {
    let result: unknown = 0;
    for (let depth = 0; depth < 3; depth += 1) result = [result];
    const deep: FrameBody = { t: 'res', id: 1, ok: true, result }; // the body map and three arrays
    expect(() => encodeBody(deep, bounds({ maxBodyDepth: 3 }))).toThrow(TypeError);
    expect(() => encodeBody(deep, bounds({ maxBodyDepth: 4 }))).not.toThrow();
  });

  it('throws TypeError for a body with no plain msgpack form', () => {
    expect(() => encodeBody({ t: 'res', id: 1, ok: true, result: new Date() }, bounds())).toThrow(TypeError);
  });
});

describe('splitting queued bodies into batches', () => {
  it('keeps everything in one batch within the bounds', () => {
    expect(sizes(splitBatches(encodeAll(pongs(40)), bounds()))).toEqual([40]);
  });

  it('splits at the body count, keeping the order', () => {
    const batches = splitBatches(encodeAll(pongs(600)), bounds());
    expect(sizes(batches)).toEqual([256, 256, 88]);
    const order = batches.flat().map((body) => (decode(body.bytes) as { value: { n: number } }).value.n);
    expect(order).toEqual(pongs(600).map((_, i) => i));
  });

  it('splits at the plaintext bytes, counting the array header', () => {
    const size = encode(pong(0)).length; // 11 bytes
    const b = bounds({ maxPlaintext: 1 + 4 * size }); // a fixarray header and four pongs
    const batches = splitBatches(encodeAll(pongs(10), b), b);
    expect(sizes(batches)).toEqual([4, 4, 2]);
    for (const batch of batches) {
      expect(batchPlaintext(batch.map((body) => body.bytes)).length).toBeLessThanOrEqual(b.maxPlaintext);
    }
  });

  it('splits at the value count, the array counting as one value', () => {
    const b = bounds({ maxElements: 10 }); // each pong is 5 values: the map, two keys, two values
    const batches = splitBatches(encodeAll(pongs(5), b), b);
    expect(sizes(batches)).toEqual([1, 1, 1, 1, 1]);
    const roomy = bounds({ maxElements: 11 });
    expect(sizes(splitBatches(encodeAll(pongs(5), roomy), roomy))).toEqual([2, 2, 1]);
  });

  it('produces batches every default receiver accepts', () => {
    const body: FrameBody = { t: 'res', id: 1, ok: true, result: Array.from({ length: 9000 }, (_, i) => i) };
    const batches = splitBatches(encodeAll(Array.from({ length: 40 }, () => body)), bounds());
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) {
      expect(decode(batchPlaintext(batch.map((queued) => queued.bytes))).ok).toBe(true);
    }
  });

  it('counts values the way the receiver does', () => {
    expect(countValues(encode({ t: 'pong', n: 1 }))).toBe(5);
    expect(countValues(encode([1, [2, 3], { a: null }]))).toBe(8);
    expect(countValues(Uint8Array.of(0xc0, 0xc0))).toBeNaN();
  });
});
