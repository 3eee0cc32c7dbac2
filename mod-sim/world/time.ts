/**
 * Clock formats the spec uses. All world times are UTC epoch milliseconds; the simulated game
 * server's local clock is UTC too, so "server-local" strings differ from the others only in form.
 */

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The default generation instant, so worlds (and tests) never depend on the wall clock. */
export const DEFAULT_NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

/** Reads a `now` option: a Date or epoch milliseconds. */
export function toEpochMs(value: Date | number): number {
  const ms = typeof value === 'number' ? value : value.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`invalid time: ${String(value)}`);
  return Math.floor(ms);
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/** `YYYY-MM-DD` of each day number seen, so formatting millions of stamps stays cheap. */
const dayCache = new Map<number, string>();

function datePart(day: number): string {
  let date = dayCache.get(day);
  if (date === undefined) {
    if (dayCache.size > 50_000) dayCache.clear();
    date = new Date(day * DAY).toISOString().slice(0, 10);
    dayCache.set(day, date);
  }
  return date;
}

/** The pieces of one stamp, left in module state so formatting allocates no object. */
let pDate = '';
let pHour = '';
let pMinute = '';
let pSecond = '';
let pMillis = '';

function split(epochMs: number): void {
  const day = Math.floor(epochMs / DAY);
  const inDay = epochMs - day * DAY;
  pDate = datePart(day);
  pHour = TWO_DIGITS[Math.floor(inDay / HOUR)] as string;
  pMinute = TWO_DIGITS[Math.floor((inDay % HOUR) / MINUTE)] as string;
  pSecond = TWO_DIGITS[Math.floor((inDay % MINUTE) / SECOND)] as string;
  pMillis = THREE_DIGITS[Math.floor(inDay % SECOND)] as string;
}

// Array.join builds one flat string; `+` would build a rope of several heap objects per stamp.

/** `YYYY-MM-DD HH:MM:SS`: roster, pack, delivery, claim-code and ledger times. */
export function sqlDateTime(epochMs: number): string {
  split(epochMs);
  return [pDate, ' ', pHour, ':', pMinute, ':', pSecond].join('');
}

/** ISO-8601 with seconds precision and `Z`: moderation, violation, IP and asset access times. */
export function isoDateTime(epochMs: number): string {
  split(epochMs);
  return [pDate, 'T', pHour, ':', pMinute, ':', pSecond, 'Z'].join('');
}

/** The game's raw local stamp `YYYY.MM.DD-HH.MM.SS` (squad last_active, member last_logout). */
export function serverLocalStamp(epochMs: number): string {
  split(epochMs);
  return [pDate.replaceAll('-', '.'), '-', pHour, '.', pMinute, '.', pSecond].join('');
}

/** `YYYY-MM-DD HH:MM:SS.mmm` on the server's clock (command history `at`); sorts as text. */
export function historyStamp(epochMs: number): string {
  split(epochMs);
  return [pDate, ' ', pHour, ':', pMinute, ':', pSecond, '.', pMillis].join('');
}

/** The number in text[from, from + length), or NaN unless all are ASCII digits. */
function digitsAt(text: string, from: number, length: number): number {
  let value = 0;
  for (let i = from; i < from + length; i++) {
    const code = text.charCodeAt(i) - 48;
    if (code < 0 || code > 9) return Number.NaN;
    value = value * 10 + code;
  }
  return value;
}

/** Parses `YYYY-MM-DD HH:MM:SS` (UTC) back to epoch milliseconds; NaN when malformed. */
export function parseSqlDateTime(text: string): number {
  if (text.length !== 19 || text[4] !== '-' || text[7] !== '-' || text[10] !== ' ') return Number.NaN;
  if (text[13] !== ':' || text[16] !== ':') return Number.NaN;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (!(month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59))
    return Number.NaN;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 2025-02-30 over to March: a real day of the month survives.
  return new Date(ms).getUTCDate() === day ? ms : Number.NaN;
}
