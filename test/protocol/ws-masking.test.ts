import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mask, unmask } from '../../protocol/ws-masking.ts';

/** ws's own JavaScript masking (lib/buffer-util.js), the reference the word-wise version must equal. */
const byByte = {
  unmask(buffer: Uint8Array, key: Uint8Array): void {
    for (let i = 0; i < buffer.length; i++) buffer[i] = (buffer[i] as number) ^ (key[i & 3] as number);
  },
  mask(source: Uint8Array, key: Uint8Array, output: Uint8Array, offset: number, length: number): void {
    for (let i = 0; i < length; i++) output[offset + i] = (source[i] as number) ^ (key[i & 3] as number);
  },
};

/** `length` random bytes starting `shift` bytes into a larger allocation (every alignment). */
function shifted(length: number, shift: number): Buffer {
  return randomBytes(length + shift + 8).subarray(shift, shift + length);
}

describe('word-wise WebSocket masking', () => {
  it('unmasks exactly as ws does, at every alignment and length', () => {
    for (let length = 0; length <= 70; length++) {
      for (let shift = 0; shift < 4; shift++) {
        const key = randomBytes(4);
        const buffer = shifted(length, shift);
        const expected = Buffer.from(buffer);
        byByte.unmask(expected, key);
        unmask(buffer, key);
        expect(buffer.equals(expected), `length ${length}, shift ${shift}`).toBe(true);
      }
    }
  });

  it('masks exactly as ws does, whether source and output share an alignment or not', () => {
    for (const length of [0, 1, 3, 4, 5, 31, 48, 63, 64, 1901]) {
      for (let sourceShift = 0; sourceShift < 4; sourceShift++) {
        for (let outputShift = 0; outputShift < 4; outputShift++) {
          const key = randomBytes(4);
          const source = shifted(length, sourceShift);
          const output = shifted(length + 14, outputShift);
          const expected = Buffer.from(output);
          byByte.mask(source, key, expected, 14, length);
          mask(source, key, output, 14, length);
          expect(output.equals(expected), `length ${length}, shifts ${sourceShift}/${outputShift}`).toBe(
            true,
          );
        }
      }
    }
  });

  it("round-trips: a sender's mask undone by a receiver's unmask", () => {
    const key = randomBytes(4);
    const payload = randomBytes(1901);
    const frame = Buffer.alloc(1901 + 6);
    mask(payload, key, frame, 6, payload.length);
    const received = frame.subarray(6);
    expect(received.equals(payload)).toBe(false);
    unmask(received, key);
    expect(received.equals(payload)).toBe(true);
  });
});
