import { describe, expect, it } from 'vitest';
import {
  decode,
  decodeWith,
  DEFAULT_CODEC_LIMITS,
  encode,
  InvalidStringError,
  resolveLimits,
} from '../../protocol/codec.ts';
import { scanMsgpack } from '../../protocol/msgpack-scan.ts';
import { expectRejected, hex } from './support.ts';

const nested = (depth: number): Uint8Array => hex('91'.repeat(depth) + 'c0');

describe('encode', () => {
  it('writes plain msgpack maps with the smallest header', () => {
    expect(Buffer.from(encode({ t: 'ping', n: 1 })).toString('hex')).toBe('82a174a470696e67a16e01');
  });

  it('writes bytes as bin and omits undefined properties', () => {
    expect(Buffer.from(encode({ a: new Uint8Array([1, 2]), b: undefined })).toString('hex')).toBe(
      '81a161c4020102',
    );
  });

  it('writes an undefined array slot as nil, never as an ext', () => {
    expect(Buffer.from(encode([undefined])).toString('hex')).toBe('91c0');
  });

  it('writes a map of more than 65,535 keys with a map32 header', () => {
    const big = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, 0]));
    expect(encode(big)[0]).toBe(0xdf);
  });

  it.each([
    ['a bigint', 10n],
    ['a Date', new Date(0)],
    ['a Map', new Map([[1, 2]])],
    ['a Set', new Set([1])],
    ['a typed array other than Uint8Array', new Uint16Array([1])],
    ['a function', () => 1],
    ['a class instance', new (class Thing {})()],
  ])('refuses %s with a TypeError', (_name, value) => {
    expect(() => encode({ value })).toThrow(TypeError);
  });

  it('refuses a forbidden key', () => {
    expect(() => encode(JSON.parse('{"__proto__": 1}'))).toThrow(/forbidden/);
  });

  it('refuses a string holding a lone surrogate with invalid_utf8 and the path to it', () => {
    const thrown = (() => {
      try {
        encode({ args: { reason: ['ok', 'bad \ud800 guy'] } });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(thrown).toBeInstanceOf(InvalidStringError);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toMatchObject({ code: 'invalid_utf8', path: 'args.reason.1' });
  });

  it('refuses a map key holding a lone surrogate', () => {
    expect(() => encode({ ['\udc00']: 1 })).toThrow(InvalidStringError);
  });

  it('writes a well-formed surrogate pair as its 4-byte UTF-8 form', () => {
    expect(Buffer.from(encode('\ud83d\ude00')).toString('hex')).toBe('a4f09f9880');
  });

  it('refuses a cyclic value instead of looping', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => encode(cyclic)).toThrow(TypeError);
  });
});

describe('decode', () => {
  it('returns maps as plain objects and bin as bytes', () => {
    const decoded = decode(hex('82a161c4020102a162c0'));
    expect(decoded.ok).toBe(true);
    const value = (decoded as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value['a']).toBeInstanceOf(Uint8Array);
    expect([...(value['a'] as Uint8Array)]).toEqual([1, 2]);
    expect(value['b']).toBeNull();
  });

  it('round-trips what encode writes', () => {
    const value = {
      t: 'res',
      id: 7,
      ok: true,
      result: { list: [1, -2, 3.5, 'x', null, true], nested: { deep: [[]] } },
    };
    expect(decode(encode(value))).toEqual({ ok: true, value });
  });

  it('rejects an empty message as malformed', () => {
    expectRejected(decode(new Uint8Array(0)), 'malformed');
  });

  it('rejects every proper prefix of a valid message as malformed, one byte at a time', () => {
    const bytes = encode({
      t: 'req',
      id: 1,
      op: 'server.status',
      args: { a: [1, 2, { b: 'c' }] },
      deadline_ms: 5000,
    });
    for (let length = 1; length < bytes.length; length += 1) {
      expectRejected(decode(bytes.subarray(0, length)), 'malformed');
    }
    expect(decode(bytes).ok).toBe(true);
  });

  it('rejects trailing bytes after the value as malformed', () => {
    expectRejected(decode(hex('c0c0')), 'malformed');
    expectRejected(decode(Buffer.concat([encode({ a: 1 }), encode({ b: 2 })])), 'malformed');
  });

  it('rejects the reserved byte 0xc1 as malformed', () => {
    expectRejected(decode(hex('91c1')), 'malformed');
  });

  it('rejects an array count larger than the bytes left as malformed', () => {
    expectRejected(decode(hex('dc0010c0')), 'malformed');
  });

  it('rejects a message over maxBytes with frame_too_large', () => {
    const bytes = encode('x'.repeat(20));
    expectRejected(decode(bytes, { maxBytes: bytes.length - 1 }), 'frame_too_large');
    expect(decode(bytes, { maxBytes: bytes.length }).ok).toBe(true);
  });

  it('rejects a message over the default 1 MiB with frame_too_large', () => {
    const bytes = new Uint8Array(DEFAULT_CODEC_LIMITS.maxBytes + 1);
    expectRejected(decode(bytes), 'frame_too_large');
  });

  it('accepts nesting at maxDepth and rejects one deeper with depth_exceeded', () => {
    expect(decode(nested(32)).ok).toBe(true);
    expectRejected(decode(nested(33)), 'depth_exceeded');
    expectRejected(decode(nested(4), { maxDepth: 3 }), 'depth_exceeded');
  });

  it('stops a 100,000-deep nesting at the depth limit', () => {
    expectRejected(decode(nested(100_000)), 'depth_exceeded');
  });

  it('pre-scans a 100,000-deep nesting without recursion when the limit allows it', () => {
    const limits = { ...DEFAULT_CODEC_LIMITS, maxDepth: 200_000, maxElements: 200_000 };
    expect(scanMsgpack(nested(100_000), limits)).toBeNull();
  });

  it('rejects a str longer than maxStringBytes with string_too_long', () => {
    expect(decode(encode('abcd'), { maxStringBytes: 4 }).ok).toBe(true);
    expectRejected(decode(encode('abcde'), { maxStringBytes: 4 }), 'string_too_long');
  });

  it('rejects a str32 header announcing 4 GiB with string_too_long before reading it', () => {
    expectRejected(decode(hex('dbffffffff')), 'string_too_long');
  });

  it('rejects a bin longer than maxBinBytes with string_too_long', () => {
    expect(decode(encode(new Uint8Array(2)), { maxBinBytes: 2 }).ok).toBe(true);
    expectRejected(decode(encode(new Uint8Array(3)), { maxBinBytes: 2 }), 'string_too_long');
  });

  it('rejects a map key longer than maxStringBytes with string_too_long', () => {
    expectRejected(decode(encode({ abcdef: 1 }), { maxStringBytes: 4 }), 'string_too_long');
  });

  it('rejects an array with more than maxEntries entries with collection_too_large', () => {
    expect(decode(encode([1, 2]), { maxEntries: 2 }).ok).toBe(true);
    expectRejected(decode(encode([1, 2, 3]), { maxEntries: 2 }), 'collection_too_large');
  });

  it('rejects a map with more than maxEntries entries with collection_too_large', () => {
    expectRejected(decode(encode({ a: 1, b: 2, c: 3 }), { maxEntries: 2 }), 'collection_too_large');
  });

  it('rejects an array32 announcing 2^32 − 1 entries by its header alone', () => {
    expectRejected(decode(hex('ddffffffff')), 'collection_too_large');
  });

  it('rejects a message with more than maxElements values with too_many_elements', () => {
    const value = [[1, 2], [3, 4], 5]; // 8 values: 3 arrays and 5 numbers
    expect(decode(encode(value), { maxElements: 8 }).ok).toBe(true);
    expectRejected(decode(encode(value), { maxElements: 7 }), 'too_many_elements');
  });

  it('counts map keys toward maxElements', () => {
    expectRejected(decode(encode({ a: 1, b: 2 }), { maxElements: 4 }), 'too_many_elements');
  });

  it.each([
    ['fixext 1', 'd40100'],
    ['fixext 16', 'd801' + '00'.repeat(16)],
    ['ext 8', 'c70101ff'],
    ['the timestamp ext -1', 'd6ff00000000'],
  ])('rejects %s with unsupported_type', (_name, bytes) => {
    expectRejected(decode(hex(bytes)), 'unsupported_type');
  });

  it.each([
    ['an integer', '810102'],
    ['a bin', '81c40161c0'],
    ['nil', '81c0c0'],
    ['an array', '8190c0'],
  ])('rejects %s as map key with non_string_key', (_name, bytes) => {
    expectRejected(decode(hex(bytes)), 'non_string_key');
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'rejects the key %s at any depth with forbidden_key',
    (key) => {
      const keyHex = Buffer.from(key).toString('hex');
      const header = (0xa0 + key.length).toString(16);
      expectRejected(decode(hex(`81${header}${keyHex}c0`)), 'forbidden_key');
      expectRejected(decode(hex(`9191 81${header}${keyHex}c0`)), 'forbidden_key');
    },
  );

  it('accepts forbidden words as values and as longer keys', () => {
    expect(decode(encode({ name: '__proto__', constructors: 1, prototype_id: 2 })).ok).toBe(true);
  });

  it('decodes int64 and uint64 in the safe range as numbers', () => {
    expect(decode(hex('cf001fffffffffffff'))).toEqual({ ok: true, value: Number.MAX_SAFE_INTEGER });
    expect(decode(hex('d3ffe0000000000001'))).toEqual({ ok: true, value: -Number.MAX_SAFE_INTEGER });
    expect(decode(hex('cf0000000000000005'))).toEqual({ ok: true, value: 5 });
  });

  it('rejects int64 and uint64 beyond ±(2^53 − 1) with integer_out_of_range', () => {
    expectRejected(decode(hex('cf0020000000000000')), 'integer_out_of_range');
    expectRejected(decode(hex('cfffffffffffffffff')), 'integer_out_of_range');
    expectRejected(decode(hex('d3ffe0000000000000')), 'integer_out_of_range');
    expectRejected(decode(hex('d37fffffffffffffff')), 'integer_out_of_range');
    expectRejected(decode(hex('d38000000000000000')), 'integer_out_of_range');
  });

  it('never throws on a non-byte input', () => {
    expectRejected(decode('c0' as unknown as Uint8Array), 'malformed');
  });

  it('reports invalid limits as a result instead of throwing', () => {
    expectRejected(decode(hex('c0'), { maxDepth: -1 }), 'internal_error');
  });
});

describe('resolveLimits', () => {
  it('fills defaults and rejects a non-positive limit', () => {
    expect(resolveLimits({ maxDepth: 4 })).toEqual({ ...DEFAULT_CODEC_LIMITS, maxDepth: 4 });
    expect(() => resolveLimits({ maxBytes: 0 })).toThrow(RangeError);
  });
});

describe('decode with float paths', () => {
  it('reports where floats sit at depths 1 to 4, by key and by index', () => {
    const floats: string[] = [];
    const bytes = hex(
      '9282a174a470696e67a16ecb3ff000000000000083a161ca3f800000a162920191cb4000000000000000a163c0',
    );
    expect(decodeWith(bytes, DEFAULT_CODEC_LIMITS, floats).ok).toBe(true);
    expect(floats).toEqual(['0/n', '1/a', '1/b/1/0']);
  });

  it('names the last of more than 16 keys correctly once the duplicate check uses a set', () => {
    const fields = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const bytes = Buffer.from(encode({ ...fields, last: 0.5 }));
    const floats: string[] = [];
    expect(decodeWith(bytes, DEFAULT_CODEC_LIMITS, floats).ok).toBe(true);
    expect(floats).toEqual(['last']);
  });
});
