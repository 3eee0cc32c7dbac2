/**
 * Brute-force back-off on bad admin tokens (docs/admin.md, "Threat model"): a client address
 * (IPv4 address, IPv6 /64 or `[api] ipv6_prefix_length`, as the edge rate limit counts) that sends `maxFailures` bad tries at
 * one credential within `windowMs` is answered 429 `rate_limited` with Retry-After for its bad
 * tries at that credential until the window has passed.
 *
 * A presented credential is checked before the back-off can refuse it (`attempt`), so a valid
 * token or sign-in code always works: the back-off holds back what fails, never the holder of a
 * real secret who shares an address with a guesser (every local user is 127.0.0.1, and sign-in
 * codes share one bucket). That costs the back-off nothing it was for: a token's secret is 238
 * bits and a code 256, so no number of tries finds one; checking one is a SHA-256 or a map look-up.
 *
 * Counted per address *and* credential (the token id a text names, whether or not it exists, or
 * one bucket for malformed texts, or one for sign-in codes): on loopback every local user shares
 * 127.0.0.1, and counting by address alone let any of them lock the operator out by sending bad
 * tokens. A guesser still gets `maxFailures` tries a window at any one token, and a token's
 * secret is 238 bits. Memory is bounded: at most `maxAddresses` (address, credential) pairs are
 * remembered, the oldest forgotten first. No timer: stale entries are dropped as they are met.
 */
import { ApiError } from '../../http/api-error.ts';
import {
  type AddressGrouping,
  addressGrouping,
  DEFAULT_IPV6_PREFIX_LENGTH,
} from '../../http/client-address.ts';
import { adminTokenIdOf } from '../../store/admin-tokens.ts';

export interface TokenBackoffPolicy {
  /** Bad tokens an address may send in a window before it is refused. */
  maxFailures: number;
  windowMs: number;
  /** (address, credential) pairs remembered at once. */
  maxAddresses: number;
  /** The IPv6 prefix an address is counted by (`[api] ipv6_prefix_length`). */
  ipv6PrefixLength: number;
}

export const TOKEN_BACKOFF_DEFAULTS: TokenBackoffPolicy = {
  maxFailures: 10,
  windowMs: 60_000,
  maxAddresses: 10_000,
  ipv6PrefixLength: DEFAULT_IPV6_PREFIX_LENGTH,
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
  readonly #addressGroup: AddressGrouping;

  constructor(policy: Partial<TokenBackoffPolicy> = {}, now: () => number = Date.now) {
    this.#policy = { ...TOKEN_BACKOFF_DEFAULTS, ...policy };
    this.#now = now;
    this.#addressGroup = addressGrouping(this.#policy.ipv6PrefixLength);
  }

  /**
   * Checks a presented credential (`verify`: what it grants, or null when it is bad) and only
   * then applies the back-off: a good one passes and starts the address's count for it again; a
   * bad one throws 429 while the address is backed off from the credential, else is counted and
   * gives null.
   */
  attempt<T>(address: string, credential: string, verify: () => T | null): T | null {
    return this.#settle(address, credential, verify());
  }

  /** `attempt` for a check that is itself asynchronous (a staff sign-in link is spent on disk). */
  async attemptAsync<T>(
    address: string,
    credential: string,
    verify: () => Promise<T | null>,
  ): Promise<T | null> {
    return this.#settle(address, credential, await verify());
  }

  #settle<T>(address: string, credential: string, granted: T | null): T | null {
    if (granted !== null) {
      this.succeeded(address, credential);
      return granted;
    }
    this.check(address, credential);
    this.failed(address, credential);
    return null;
  }

  /** Throws 429 while `address` is backed off from `credential`. */
  check(address: string, credential: string): void {
    const entry = this.#current(this.#subjectOf(address, credential));
    if (entry === undefined || entry.count < this.#policy.maxFailures) return;
    const retryAfter = Math.max(1, Math.ceil((entry.since + this.#policy.windowMs - this.#now()) / 1000));
    throw new ApiError('rate_limited', 'Too many bad admin tokens from this address; retry later.', {
      headers: { 'retry-after': String(retryAfter) },
    });
  }

  /** One bad try at `credential` (a wrong, unknown, revoked or malformed token, a bad code). */
  failed(address: string, credential: string): void {
    const subject = this.#subjectOf(address, credential);
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

  /** A good token: the address's count for it starts again. */
  succeeded(address: string, credential: string): void {
    this.#failures.delete(this.#subjectOf(address, credential));
  }

  /** Addresses remembered now (for tests). */
  get size(): number {
    return this.#failures.size;
  }

  /** What a bad try counts against: one bucket per client address and credential. */
  #subjectOf(address: string, credential: string): string {
    return `${this.#addressGroup(address)} ${credential}`;
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

/** The credential a bearer text tries: the token id it names, or one bucket for malformed texts. */
export function tokenCredential(text: string): string {
  const id = adminTokenIdOf(text);
  return id === null ? 'malformed-token' : `token:${id}`;
}

/** The one credential every sign-in code counts against (a code names no owner). */
export const CODE_CREDENTIAL = 'sign-in-code';
