/**
 * Brute-force back-off on bad admin tokens (docs/admin.md, "Defences"): a client address (IPv4
 * address, IPv6 /64, as the edge rate limit counts) that sends `maxFailures` bad tokens within
 * `windowMs` is answered 429 `rate_limited` with Retry-After until that window has passed, without
 * its tokens being checked at all. Memory is bounded: at most `maxAddresses` addresses are
 * remembered, the oldest forgotten first. No timer: stale entries are dropped as they are met.
 */
import { ApiError } from '../http/api-error.ts';
import { edgeSubject } from '../http/client-address.ts';

export interface TokenBackoffPolicy {
  /** Bad tokens an address may send in a window before it is refused. */
  maxFailures: number;
  windowMs: number;
  /** Addresses remembered at once. */
  maxAddresses: number;
}

export const TOKEN_BACKOFF_DEFAULTS: TokenBackoffPolicy = {
  maxFailures: 10,
  windowMs: 60_000,
  maxAddresses: 10_000,
};

interface Failures {
  count: number;
  /** When the window of these failures began. */
  since: number;
}

export class TokenBackoff {
  readonly #failures = new Map<string, Failures>();
  readonly #policy: TokenBackoffPolicy;
  readonly #now: () => number;

  constructor(policy: Partial<TokenBackoffPolicy> = {}, now: () => number = Date.now) {
    this.#policy = { ...TOKEN_BACKOFF_DEFAULTS, ...policy };
    this.#now = now;
  }

  /** Throws 429 while `address` is backed off. */
  check(address: string): void {
    const entry = this.#current(edgeSubject(address));
    if (entry === undefined || entry.count < this.#policy.maxFailures) return;
    const retryAfter = Math.max(1, Math.ceil((entry.since + this.#policy.windowMs - this.#now()) / 1000));
    throw new ApiError('rate_limited', 'Too many bad admin tokens from this address; retry later.', {
      headers: { 'retry-after': String(retryAfter) },
    });
  }

  /** One bad (missing, malformed, unknown or revoked) token from `address`. */
  failed(address: string): void {
    const subject = edgeSubject(address);
    const entry = this.#current(subject);
    if (entry !== undefined) {
      entry.count += 1;
      return;
    }
    if (this.#failures.size >= this.#policy.maxAddresses) {
      const oldest = this.#failures.keys().next().value;
      if (oldest !== undefined) this.#failures.delete(oldest);
    }
    this.#failures.set(subject, { count: 1, since: this.#now() });
  }

  /** A good token: the address's count starts again. */
  succeeded(address: string): void {
    this.#failures.delete(edgeSubject(address));
  }

  /** Addresses remembered now (for tests). */
  get size(): number {
    return this.#failures.size;
  }

  #current(subject: string): Failures | undefined {
    const entry = this.#failures.get(subject);
    if (entry === undefined) return undefined;
    if (this.#now() - entry.since >= this.#policy.windowMs) {
      this.#failures.delete(subject);
      return undefined;
    }
    return entry;
  }
}
