import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  historyStamp,
  isoDateTime,
  parseSqlDateTime,
  serverLocalStamp,
  sqlDateTime,
  toEpochMs,
} from '../../../mod-sim/world/time.ts';

const AT = Date.UTC(2025, 1, 3, 4, 5, 6, 789);

describe('world clock formats', () => {
  it('formats one instant in each of the spec’s forms', () => {
    expect(sqlDateTime(AT)).toBe('2025-02-03 04:05:06');
    expect(isoDateTime(AT)).toBe('2025-02-03T04:05:06Z');
    expect(serverLocalStamp(AT)).toBe('2025.02.03-04.05.06');
    expect(historyStamp(AT)).toBe('2025-02-03 04:05:06.789');
  });

  it('agrees with Date.toISOString for any instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(historyStamp(ms)).toBe(`${iso.slice(0, 10)} ${iso.slice(11, 23)}`);
        expect(isoDateTime(ms)).toBe(`${iso.slice(0, 19)}Z`);
        expect(parseSqlDateTime(sqlDateTime(ms))).toBe(Math.floor(ms / 1000) * 1000);
      }),
    );
  });

  it.each([
    '2025-02-30 00:00:00',
    '2025-13-01 00:00:00',
    '2025-01-01 24:00:00',
    '2025-01-01T00:00:00',
    '2025-1-1 0:0:0',
    '',
  ])('parses %j as NaN', (text) => {
    expect(parseSqlDateTime(text)).toBeNaN();
  });

  it('accepts a Date or epoch milliseconds as an instant', () => {
    expect(toEpochMs(new Date(AT))).toBe(AT);
    expect(toEpochMs(AT + 0.5)).toBe(AT);
    expect(() => toEpochMs(new Date('nonsense'))).toThrow(/invalid time/);
  });
});
