/**
 * Fixed-window request counters, one per subject (an API key id, or a client address for the
 * edge limit). A fixed window is what the RateLimit headers describe exactly: `Reset` is when
 * the window ends and `Remaining` is what is left of it.
 */
export interface RateLimitPolicy {
  limit: number;
  windowSec: number;
}

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1 while the window is running). */
  resetSec: number;
  policy: RateLimitPolicy;
}

interface Window {
  startedAt: number;
  count: number;
}

export class RateLimiter {
  readonly #windows = new Map<string, Window>();
  #lastSweep = 0;
  readonly #now: () => number;

  constructor(
    readonly policy: RateLimitPolicy,
    now: () => number = Date.now,
  ) {
    this.#now = now;
    if (!Number.isInteger(policy.limit) || policy.limit < 1) throw new Error('rate limit must be >= 1');
    if (!Number.isInteger(policy.windowSec) || policy.windowSec < 1) throw new Error('window must be >= 1 s');
  }

  /** Counts one request for `subject` and says whether it may proceed. */
  take(subject: string): RateLimitVerdict {
    return this.#verdict(subject, true);
  }

  /**
   * Where `subject` stands, without counting a request: what the headers report on a response
   * that must not spend the quota (a refusal before the per-key stage).
   */
  peek(subject: string): RateLimitVerdict {
    return this.#verdict(subject, false);
  }

  #verdict(subject: string, count: boolean): RateLimitVerdict {
    const now = this.#now();
    const windowMs = this.policy.windowSec * 1000;
    this.#sweep(now, windowMs);
    let window = this.#windows.get(subject);
    if (!window || now - window.startedAt >= windowMs) {
      window = { startedAt: now, count: 0 };
      if (count) this.#windows.set(subject, window);
    }
    const allowed = window.count < this.policy.limit;
    if (allowed && count) window.count += 1;
    return {
      allowed,
      limit: this.policy.limit,
      remaining: this.policy.limit - window.count,
      resetSec: Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000)),
      policy: this.policy,
    };
  }

  /** Drops expired windows at most once per window length, so memory follows active subjects. */
  #sweep(now: number, windowMs: number): void {
    if (now - this.#lastSweep < windowMs) return;
    this.#lastSweep = now;
    for (const [subject, window] of this.#windows) {
      if (now - window.startedAt >= windowMs) this.#windows.delete(subject);
    }
  }
}

/** The RateLimit-* headers (docs/pipeline.md) for a verdict. */
export function rateLimitHeaders(verdict: RateLimitVerdict): Record<string, string> {
  return {
    'ratelimit-limit': String(verdict.limit),
    'ratelimit-remaining': String(verdict.remaining),
    'ratelimit-reset': String(verdict.resetSec),
    'ratelimit-policy': `${verdict.policy.limit};w=${verdict.policy.windowSec}`,
  };
}
