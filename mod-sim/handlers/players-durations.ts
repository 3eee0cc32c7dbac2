/**
 * Ban and mute durations as the game reads them (docs/players.md#durations): a ban keeps
 * its exact duration; a temporary mute is rounded up to the next whole hour. A month is 30 days
 * (our decision: the spec gives no length, and a fixed one keeps `expires_at - banned_at` equal to
 * the requested duration whatever the calendar).
 */
import { OpError } from '../../protocol/ops/index.ts';
import { BAN_CAPS, MUTE_CAPS, roundMuteMinutes } from '../../protocol/ops/players.ts';

export const MINUTES_PER_UNIT = {
  minutes: 1,
  hours: 60,
  days: 24 * 60,
  months: 30 * 24 * 60,
} as const;

export type BanUnit = keyof typeof MINUTES_PER_UNIT;
export type MuteUnit = Exclude<BanUnit, 'months'>;

/** Largest duration per unit (spec "Limits", PROTOCOL §6.6): the catalogue's, which the daemon checks too. */
export { BAN_CAPS, MUTE_CAPS };

export interface DurationRequest<U extends BanUnit> {
  permanent: boolean;
  duration: number | null;
  duration_unit: U;
}

/**
 * The requested duration in minutes, or null for a permanent one (the duration is then ignored).
 * `invalid` without a duration, or above the unit's cap.
 */
export function requestedMinutes<U extends BanUnit>(
  request: DurationRequest<U>,
  caps: Readonly<Record<U, number>>,
): number | null {
  if (request.permanent) return null;
  const { duration, duration_unit: unit } = request;
  if (duration === null) throw new OpError('invalid', 'a duration is required unless permanent is true');
  const cap = caps[unit];
  if (duration > cap) throw new OpError('invalid', `duration is over the cap of ${cap} ${unit}`);
  return duration * MINUTES_PER_UNIT[unit];
}

/** The game's mute rounding, as the catalogue states it (PROTOCOL §6.6). */
export { roundMuteMinutes };
