/**
 * When to try a failed message again, and when to give up on the endpoint.
 *
 * Exponential backoff with full jitter: before attempt n+1 wait a random time in
 * [0, min(maxDelay, baseDelay · 2^(n-1))]. A receiver's own answer wins: a 429 or 503 with
 * `Retry-After` (or Discord's `retry_after`) waits that long instead, capped at maxDelay.
 *
 * An endpoint is disabled when one message has kept failing for `retryWindowMs` (24 h by
 * default: with a 5 s base and a 1 h cap that is some 40 to 60 attempts), or at once on
 * 410 Gone. Disabling keeps the endpoint's position: re-enabled, it resumes with that message.
 */

export interface RetryPolicy {
  /** First backoff ceiling. */
  readonly baseDelayMs: number;
  /** Backoff ceiling after doubling, and the longest Retry-After honoured. */
  readonly maxDelayMs: number;
  /** How long one message may keep failing before the endpoint is disabled. */
  readonly retryWindowMs: number;
  /** Per attempt, from connecting to the end of the (bounded) response body. */
  readonly timeoutMs: number;
  /** Response bytes read at most; the rest is discarded (the status is what counts). */
  readonly maxResponseBytes: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  baseDelayMs: 5_000,
  maxDelayMs: 3_600_000,
  retryWindowMs: 24 * 3_600_000,
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
});

/** The wait after failed attempt number `attempt` (1-based). */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 40));
  return Math.floor(random() * ceiling);
}

/** The receiver's requested wait, capped; undefined when it asked for none. */
export function honouredWait(policy: RetryPolicy, requestedMs: number | undefined): number | undefined {
  if (requestedMs === undefined || !Number.isFinite(requestedMs) || requestedMs < 0) return undefined;
  return Math.min(Math.ceil(requestedMs), policy.maxDelayMs);
}

/** Why the endpoint must be disabled now, or null to keep retrying. */
export function giveUpReason(
  policy: RetryPolicy,
  failure: { status: number | null; runStartedAt: Date; attempts: number },
  now: Date,
): string | null {
  if (failure.status === 410) return 'the receiver answered 410 Gone';
  const failingMs = now.getTime() - failure.runStartedAt.getTime();
  if (failingMs < policy.retryWindowMs) return null;
  return `one message failed ${failure.attempts} times over ${formatSpan(failingMs)}`;
}

function formatSpan(ms: number): string {
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  if (ms >= 1_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${ms} ms`;
}
