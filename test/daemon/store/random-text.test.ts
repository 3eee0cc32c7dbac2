import type * as NodeCrypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

const fixedBytes = vi.hoisted(() => ({ queue: [] as number[][] }));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof NodeCrypto>();
  return {
    ...actual,
    randomBytes: (size: number) => {
      const next = fixedBytes.queue.shift();
      return next === undefined ? actual.randomBytes(size) : Buffer.from(next);
    },
  };
});

const { BASE62, LOWER_ALPHANUMERIC, randomText } = await import('../../../daemon/store/random-text.ts');

describe('randomText', () => {
  it('skips bytes at or above the largest multiple of the alphabet size, so no character is favoured', () => {
    // 62 * 4 = 248: bytes 248 to 255 would favour the first 8 characters if taken modulo 62.
    fixedBytes.queue.push([248, 255, 0, 61, 62, 247]);
    expect(randomText(BASE62, 4)).toBe(`${BASE62[0]}${BASE62[61]}${BASE62[0]}${BASE62[247 % 62]}`);
  });

  it('draws more bytes when too many were rejected', () => {
    fixedBytes.queue.push([255, 255, 255, 255, 255, 255], [1, 2]);
    expect(randomText(LOWER_ALPHANUMERIC, 2)).toBe('bc');
  });

  it('uses only characters of the alphabet and returns the requested length', () => {
    const text = randomText(LOWER_ALPHANUMERIC, 500);
    expect(text).toHaveLength(500);
    expect(text).toMatch(/^[a-z0-9]+$/);
  });
});
