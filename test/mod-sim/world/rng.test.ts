import { describe, expect, it } from 'vitest';
import { deriveRng, weightTable } from '../../../mod-sim/world/rng.ts';

function draws(seed: number, stream: number, index = 0): number[] {
  const rng = deriveRng(seed, stream, index);
  return Array.from({ length: 8 }, () => rng.u32());
}

describe('seeded randomness', () => {
  it('repeats a stream exactly for the same seed, stream and index', () => {
    expect(draws(1, 2, 3)).toEqual(draws(1, 2, 3));
  });

  it('gives unrelated sequences to neighbouring seeds, streams and indexes', () => {
    const base = draws(1, 2, 3);
    for (const other of [draws(2, 2, 3), draws(1, 3, 3), draws(1, 2, 4), draws(2 ** 40 + 1, 2, 3)]) {
      expect(other).not.toEqual(base);
      expect(other.filter((value, i) => value === base[i])).toEqual([]);
    }
  });

  it('draws integers within inclusive bounds, reaching both ends', () => {
    const rng = deriveRng(9, 1);
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const value = rng.int(-3, 3);
      expect(value).toBeGreaterThanOrEqual(-3);
      expect(value).toBeLessThanOrEqual(3);
      seen.add(value);
    }
    expect(seen.size).toBe(7);
    expect(() => rng.int(5, 4)).toThrow(RangeError);
  });

  it('draws digits and decimals of the requested length', () => {
    const rng = deriveRng(9, 2);
    for (let length = 1; length <= 25; length++) {
      expect(rng.digits(length)).toMatch(new RegExp(`^\\d{${length}}$`));
      expect(rng.decimal(length)).toMatch(new RegExp(`^[1-9]\\d{${length - 1}}$`));
    }
  });

  it('picks by weight, never a zero-weight value', () => {
    const rng = deriveRng(9, 3);
    const table = weightTable([
      ['a', 3],
      ['never', 0],
      ['b', 1],
    ]);
    const counts = { a: 0, b: 0, never: 0 };
    for (let i = 0; i < 4_000; i++) counts[rng.weighted(table) as keyof typeof counts]++;
    expect(counts.never).toBe(0);
    expect(counts.a / counts.b).toBeGreaterThan(2.4);
    expect(counts.a / counts.b).toBeLessThan(3.6);
    expect(() => weightTable([['x', 0]])).toThrow(/positive weight/);
  });
});
