/**
 * Seeded randomness for the simulated world. Never Math.random: every value the world holds is a
 * function of (seed, stream, index), so the same seed gives a byte-identical world.
 *
 * A stream is one independent sequence (players, squads, the ledger, …); a lazily derived part of
 * one entity (a player's inventory, say) gets its own stream keyed by that entity's ordinal, so it
 * comes out the same whenever, and in whatever order, it is first read.
 */
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** Stream numbers. Append only: renumbering one changes every world generated from it. */
export const STREAM = {
  players: 1,
  moderation: 2,
  squads: 3,
  assets: 4,
  packs: 5,
  claimCodes: 6,
  ledger: 7,
  commandHistory: 8,
  playerDetails: 9,
  playerInventory: 10,
  vehicleInventory: 11,
  containerInventory: 12,
  ipHistory: 13,
  deliveries: 14,
  consoleActivity: 15,
  gameLife: 16,
} as const;

const TWO_POW_32 = 0x1_0000_0000;
const TWO_POW_53 = 2 ** 53;

/** murmur3's 32-bit finaliser: a cheap bijective mix with full avalanche. */
function fmix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Hashes a path of non-negative safe integers into the four 32-bit words of a xoroshiro state. */
function stateFor(path: readonly number[]): number[] {
  let h = 0x243f6a88 ^ path.length;
  for (const part of path) {
    h = fmix32(h ^ fmix32(part % TWO_POW_32));
    h = fmix32(h ^ fmix32(Math.floor(part / TWO_POW_32) + 0x632be5ab));
  }
  const words = [0, 1, 2, 3].map((k) => fmix32(h + Math.imul(k + 1, 0x9e3779b9)));
  // xoroshiro must not start from the all-zero state; the odds are 2^-128, the guard is free.
  if (!words.some((word) => word !== 0)) words[0] = 1;
  return words;
}

/** Values with weights, prepared once for repeated draws. */
export interface WeightTable<T> {
  readonly values: readonly T[];
  /** Running sums of the weights. */
  readonly cumulative: Float64Array;
  readonly total: number;
}

/** Prepares `[[value, weight], …]` (non-negative weights, at least one positive) for `Rng.weighted`. */
export function weightTable<T>(entries: readonly (readonly [T, number])[]): WeightTable<T> {
  const cumulative = new Float64Array(entries.length);
  let total = 0;
  entries.forEach(([, weight], index) => {
    if (!(weight >= 0)) throw new RangeError(`bad weight ${weight}`);
    total += weight;
    cumulative[index] = total;
  });
  if (!(total > 0)) throw new RangeError('a weight table needs a positive weight');
  return { values: entries.map(([value]) => value), cumulative, total };
}

/** A small sampling API over one pure-rand generator (which advances in place). */
export class Rng {
  readonly #gen: RandomGenerator;

  constructor(gen: RandomGenerator) {
    this.#gen = gen;
  }

  /** Next unsigned 32-bit value. */
  u32(): number {
    return this.#gen.next() >>> 0;
  }

  /** Uniform float in [0, 1) with 53 bits of randomness. */
  float(): number {
    const high = this.u32() >>> 5;
    const low = this.u32() >>> 6;
    return (high * 67_108_864 + low) / TWO_POW_53;
  }

  /** Uniform integer in [min, max], both inclusive; unbiased (rejection sampling). */
  int(min: number, max: number): number {
    const size = max - min + 1;
    if (!(size >= 1) || size > TWO_POW_32) throw new RangeError(`bad integer range [${min}, ${max}]`);
    if (size === 1) return min;
    const limit = TWO_POW_32 - (TWO_POW_32 % size);
    let value = this.u32();
    while (value >= limit) value = this.u32();
    return min + (value % size);
  }

  /** Uniform float in [min, max), rounded to `decimals` places. */
  real(min: number, max: number, decimals = 2): number {
    const scale = 10 ** decimals;
    return Math.round((min + this.float() * (max - min)) * scale) / scale;
  }

  /** An integer in [min, max] skewed towards min: most balances are small, a few are large. */
  skewed(min: number, max: number, power = 3): number {
    return min + Math.floor(this.float() ** power * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Picks a value from a weight table (see `weightTable`): O(log n), no allocation. */
  weighted<T>(table: WeightTable<T>): T {
    const roll = this.float() * table.total;
    const { cumulative } = table;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((cumulative[mid] as number) <= roll) low = mid + 1;
      else high = mid;
    }
    return table.values[low] as T;
  }

  /** `count` decimal digits (leading zeros allowed), as one flat string. */
  digits(count: number): string {
    const chunks: string[] = [];
    for (let left = count; left > 0; left -= 9) {
      const chunk = Math.min(9, left);
      chunks.push(String(this.int(0, 10 ** chunk - 1)).padStart(chunk, '0'));
    }
    return chunks.join('');
  }

  /** A decimal number of exactly `length` digits, never with a leading zero. */
  decimal(length: number): string {
    return [String(this.int(1, 9)), this.digits(length - 1)].join('');
  }

  /** Fisher–Yates, in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }
}

/** The generator for one stream of one world (and optionally one entity of that stream). */
export function deriveRng(seed: number, stream: number, index = 0): Rng {
  return new Rng(xoroshiro128plusFromState(stateFor([seed, stream, index])));
}
