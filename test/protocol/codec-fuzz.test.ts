import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { decode, encode } from '../../protocol/codec.ts';
import { PROTOCOL_ERRORS } from '../../protocol/errors.ts';
import { Session } from '../../protocol/session.ts';
import { handshakeInMemory } from './support.ts';

const KNOWN_CODES = new Set(Object.keys(PROTOCOL_ERRORS));

/** Plain values the protocol carries: JSON-like with bytes, no forbidden keys. */
const plainValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.double({ noNaN: true }),
    fc.string(),
    fc.uint8Array({ maxLength: 16 }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.string().filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k)),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

/** Buffers (what bin decodes to) compared as plain bytes; -0 is written as the integer 0. */
function normalize(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (value instanceof Uint8Array) return [...value];
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  }
  return value;
}

function assertOutcome(outcome: ReturnType<typeof decode>): void {
  if (!outcome.ok) {
    expect(KNOWN_CODES.has(outcome.error.code)).toBe(true);
    expect(outcome.error.closeCode).toBeGreaterThanOrEqual(4000);
    expect(outcome.error.closeCode).toBeLessThanOrEqual(4999);
  }
}

describe('codec properties', () => {
  it('decode never throws on arbitrary bytes and always answers with a known code', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => {
        assertOutcome(decode(bytes));
      }),
      { numRuns: 5_000 },
    );
  });

  it('decode never throws on arbitrary bytes under tight limits', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 8 }), (bytes, limit) => {
        assertOutcome(
          decode(bytes, {
            maxDepth: limit,
            maxEntries: limit,
            maxElements: limit * 2,
            maxStringBytes: limit,
            maxBinBytes: limit,
          }),
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it('decode round-trips every plain value encode writes', () => {
    fc.assert(
      fc.property(plainValue, (value) => {
        const decoded = decode(encode(value));
        expect(decoded.ok).toBe(true);
        expect(normalize((decoded as { value: unknown }).value)).toEqual(normalize(value));
      }),
      { numRuns: 1_000 },
    );
  });

  it('encode writes the bytes of the reference msgpackr options, with or without undefined inside', () => {
    // PROTOCOL §2.1: what codec.ts configures; encode takes a faster packr when no undefined is inside.
    const reference = new Packr({
      useRecords: false,
      variableMapSize: true,
      encodeUndefinedAsNil: true,
      skipValues: [undefined],
    } as ConstructorParameters<typeof Packr>[0]);
    const withHoles = fc.tuple(plainValue, fc.constantFrom(undefined, null)).map(([value, hole]) => ({
      value,
      hole,
      list: [hole, value],
    }));
    fc.assert(
      fc.property(fc.oneof(plainValue, withHoles), (value) => {
        expect(Buffer.from(encode(value)).toString('hex')).toBe(reference.pack(value).toString('hex'));
      }),
      { numRuns: 2_000 },
    );
  });

  it('decode never throws on mutated valid messages', () => {
    fc.assert(
      fc.property(
        plainValue,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (value, mutations) => {
          const bytes = new Uint8Array(encode(value));
          for (const [at, byte] of mutations) bytes[at % bytes.length] = byte;
          assertOutcome(decode(bytes));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('a session never throws on mutated valid frames and accepts none of them', () => {
    const link = handshakeInMemory();
    const frame = link.daemonSession.seal([{ t: 'ready' }]);
    expect(new Session(link.mod).open(frame).ok).toBe(true);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 }),
        (mutations) => {
          const bytes = new Uint8Array(frame);
          for (const [at, flip] of mutations)
            bytes[at % bytes.length] = (bytes[at % bytes.length] as number) ^ flip;
          if (Buffer.compare(bytes, frame) === 0) return; // two flips cancelled out
          const opened = new Session(link.mod).open(bytes); // a fresh receiver each run
          expect(opened.ok).toBe(false);
          assertOutcome(opened);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
