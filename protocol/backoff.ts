/**
 * Full-jitter exponential backoff (PROTOCOL §5.4): attempt k waits a uniformly random time in
 * [0, min(maxMs, initialMs · 2^k)). Pure, so the schedule is tested without timers.
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({ initialMs: 250, maxMs: 10_000 });

/** The ceiling of attempt `attempt` (from 0). */
export function backoffCeiling(attempt: number, policy: BackoffPolicy): number {
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
}

/** The wait before attempt `attempt`; `random` returns a number in [0, 1). */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * backoffCeiling(attempt, policy));
}
