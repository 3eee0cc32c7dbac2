/**
 * The bounds on what a mod may put into the event log (PROTOCOL §9.5, docs/events.md "Limits"):
 * the size of one event and of one `events` body, in bytes of their msgpack encoding, and a rate
 * in events and in bytes, each a token bucket with a burst. The buckets belong to the daemon's
 * one mod link and survive a reconnect, so redialling buys a mod nothing. What does not fit is
 * refused: acknowledged without being stored, and named in the ack's `refused`.
 */
import { encode } from '../../protocol/codec.ts';
import type { ModEvent } from '../../protocol/frames.ts';

export interface EventLimits {
  /** One event (`{seq, type, at, data}`) as msgpack, in bytes. */
  maxEventBytes: number;
  /** The events of one `events` body together, as msgpack, in bytes. */
  maxBatchBytes: number;
  /** Sustained events per second from the mod, and the burst above it. */
  eventsPerSecond: number;
  eventsBurst: number;
  /** Sustained event bytes per second (the same msgpack bytes), and the burst above it. */
  bytesPerSecond: number;
  bytesBurst: number;
}

export const DEFAULT_EVENT_LIMITS: Readonly<EventLimits> = Object.freeze({
  maxEventBytes: 64 * 1024,
  maxBatchBytes: 512 * 1024,
  eventsPerSecond: 2_000,
  eventsBurst: 20_000,
  bytesPerSecond: 4 * 1024 * 1024,
  bytesBurst: 64 * 1024 * 1024,
});

/** The defaults with `overrides` applied, each checked to be a positive integer. */
export function resolveEventLimits(overrides: Partial<EventLimits> = {}): EventLimits {
  const limits = { ...DEFAULT_EVENT_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`events.${name} must be a positive integer`);
  }
  return limits;
}

/** A token bucket: `rate` tokens a second, holding at most `burst`; starts full. */
export class TokenBucket {
  #tokens: number;
  #at: number;
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: () => number;

  constructor(rate: number, burst: number, now: () => number = Date.now) {
    this.#rate = rate;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#at = now();
  }

  /** Takes `cost` tokens if there are that many; false (and nothing taken) otherwise. */
  take(cost: number): boolean {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) / 1000) * this.#rate);
    this.#at = now;
    if (cost > this.#tokens) return false;
    this.#tokens -= cost;
    return true;
  }
}

/** The size of one event as its msgpack encoding, the measure of PROTOCOL §9.5 rule 1. */
export function encodedEventBytes(event: ModEvent): number {
  try {
    return encode({ seq: event.seq, type: event.type, at: event.at, data: event.data }).length;
  } catch {
    return Number.POSITIVE_INFINITY; // came off the wire, so it encodes; refuse rather than throw
  }
}

/** The rate buckets of the mod link, built once from the limits. */
export class EventRateLimit {
  readonly #events: TokenBucket;
  readonly #bytes: TokenBucket;

  constructor(limits: EventLimits, now: () => number = Date.now) {
    this.#events = new TokenBucket(limits.eventsPerSecond, limits.eventsBurst, now);
    this.#bytes = new TokenBucket(limits.bytesPerSecond, limits.bytesBurst, now);
  }

  /** Takes one event of `bytes` from both buckets, or from neither. */
  admit(bytes: number): boolean {
    if (!this.#events.take(1)) return false;
    if (this.#bytes.take(bytes)) return true;
    this.#events.take(-1); // give the event token back: nothing was admitted
    return false;
  }
}
