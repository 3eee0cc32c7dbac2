/**
 * How many long-lived streams (GET /v1/events as Server-Sent Events) one API key and one client
 * address may hold open at once (docs/events.md, "Limits"). Trusted proxies are exempt from the
 * per-address connection cap, so behind nginx the connection guard cannot stop one key holding
 * every connection with streams; these caps can, since the address here is the client's own
 * (after `trusted_proxies`). One stream over either is answered 429 `rate_limited` with
 * `Retry-After`; a slot is given back when its stream ends, however it ends.
 */
import { ApiError } from './api-error.ts';
import { type AddressGrouping, edgeSubject } from './client-address.ts';

export interface StreamLimits {
  /** Open streams per API key. */
  maxPerKey: number;
  /** Open streams per client address (IPv6: per /64, or `[api] ipv6_prefix_length`). */
  maxPerAddress: number;
}

export const STREAM_LIMIT_DEFAULTS: StreamLimits = Object.freeze({ maxPerKey: 4, maxPerAddress: 16 });

/** Seconds a refused client is asked to wait: a slot frees only when a stream of its ends. */
const RETRY_AFTER_SEC = 5;

export class StreamSlots {
  readonly #byKey = new Map<string, number>();
  readonly #byAddress = new Map<string, number>();

  constructor(
    readonly limits: StreamLimits = STREAM_LIMIT_DEFAULTS,
    readonly subjectOf: AddressGrouping = edgeSubject,
  ) {}

  /** Takes a slot for a stream of `keyId` from `address`; returns what gives it back (once). */
  take(keyId: string, address: string): () => void {
    const subject = this.subjectOf(address);
    if ((this.#byKey.get(keyId) ?? 0) >= this.limits.maxPerKey) {
      throw refused(`This API key already holds ${this.limits.maxPerKey} open event streams.`);
    }
    if ((this.#byAddress.get(subject) ?? 0) >= this.limits.maxPerAddress) {
      throw refused(`This address already holds ${this.limits.maxPerAddress} open event streams.`);
    }
    add(this.#byKey, keyId, 1);
    add(this.#byAddress, subject, 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      add(this.#byKey, keyId, -1);
      add(this.#byAddress, subject, -1);
    };
  }

  /** Open streams of a key (for tests and diagnostics). */
  heldBy(keyId: string): number {
    return this.#byKey.get(keyId) ?? 0;
  }
}

function add(counts: Map<string, number>, name: string, delta: 1 | -1): void {
  const next = (counts.get(name) ?? 0) + delta;
  if (next <= 0) counts.delete(name);
  else counts.set(name, next);
}

function refused(message: string): ApiError {
  return new ApiError('rate_limited', `${message} Close one, or retry once one has ended.`, {
    headers: { 'retry-after': String(RETRY_AFTER_SEC) },
  });
}
