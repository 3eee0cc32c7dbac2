/**
 * The rules for values an operator types, checked the same way wherever they arrive: a CLI flag
 * (cli/options.ts turns the error into a usage error) or an admin API body (a zod refinement
 * turns it into a validation_error). Each function returns the value in its stored form or
 * throws an InputRuleError whose message says what is expected.
 */

export class InputRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputRuleError';
  }
}

const DURATION_UNITS_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
/** Ten years: longer is a typo more often than a wish, and `plan` dates stay sane. */
export const MAX_DURATION_MS = 3_650 * DURATION_UNITS_MS.d;

/** `30d`, `12h`, `90m`, `2w`: a duration in milliseconds, at most `maxMs`. */
export function durationMs(value: string, maxMs = MAX_DURATION_MS): number {
  const match = /^([1-9][0-9]{0,6})([mhdw])$/.exec(value.trim());
  if (match?.[1] === undefined || match[2] === undefined) {
    throw new InputRuleError(
      'expected a number followed by m, h, d or w (minutes, hours, days, weeks), e.g. 30d',
    );
  }
  const ms = Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS];
  if (ms > maxMs) throw new InputRuleError(`at most ${formatDuration(maxMs)}`);
  return ms;
}

/** The largest whole unit that writes `ms` exactly: 3650d, 30d, 12h, 90m. */
export function formatDuration(ms: number): string {
  if (ms % DURATION_UNITS_MS.d === 0) {
    const days = ms / DURATION_UNITS_MS.d;
    return days === 3_650 ? '3650d (ten years)' : `${days}d`;
  }
  if (ms % DURATION_UNITS_MS.h === 0) return `${ms / DURATION_UNITS_MS.h}h`;
  return `${Math.round(ms / DURATION_UNITS_MS.m)}m`;
}

/** A display name: trimmed, not empty, at most `maxLength` characters, no control characters. */
export function displayName(value: string, maxLength: number): string {
  const name = value.trim();
  if (name === '') throw new InputRuleError('must not be empty');
  if (name.length > maxLength) throw new InputRuleError(`at most ${maxLength} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new InputRuleError('must not contain control characters');
  return name;
}
