/**
 * The daemon's short read cache. A cacheable read is answered from
 * here for its max-age window, and concurrent identical reads share one op, so the game server
 * sees at most one query per distinct read per window however hard bots poll. Entries carry
 * tags; a write through the daemon drops the tags it affects, so a client reads its own writes.
 *
 * What is cached is the op's result, not the HTTP response: the same result serves every key,
 * and per-key parts (cursors) are added after.
 */
export interface ReadCacheOptions {
  now?: () => number;
  /** Upper bound on stored results; the oldest go first. */
  maxEntries?: number;
  /** Told how each read was answered (the metrics' hit / coalesced / miss). */
  observe?: (outcome: 'hit' | 'coalesced' | 'miss') => void;
}

interface Entry {
  value: unknown;
  expiresAt: number;
  tags: readonly string[];
}

interface Flight {
  promise: Promise<unknown>;
  tags: readonly string[];
}

export class ReadCache {
  readonly #entries = new Map<string, Entry>();
  readonly #flights = new Map<string, Flight>();
  /** Bumped by invalidate(); a load that started before a bump does not store its result. */
  readonly #epochs = new Map<string, number>();
  readonly #now: () => number;
  readonly #maxEntries: number;
  readonly #observe: (outcome: 'hit' | 'coalesced' | 'miss') => void;

  constructor(options: ReadCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#observe = options.observe ?? (() => undefined);
  }

  async get<T>(key: string, ttlMs: number, tags: readonly string[], load: () => Promise<T>): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt > this.#now()) {
      this.#observe('hit');
      return entry.value as T;
    }
    if (entry) this.#entries.delete(key);
    const flight = this.#flights.get(key);
    if (flight) {
      this.#observe('coalesced');
      return flight.promise as Promise<T>;
    }
    this.#observe('miss');
    return this.#load(key, ttlMs, tags, load);
  }

  /** True when `value` is what a read of `key` would be answered with now, from the cache. */
  holds(key: string, value: unknown): boolean {
    const entry = this.#entries.get(key);
    return entry !== undefined && entry.value === value && entry.expiresAt > this.#now();
  }

  /** Counts a read answered from the cache on the caller's side (a memoized response). */
  countHit(): void {
    this.#observe('hit');
  }

  /** Drops cached results and in-flight loads carrying any of `tags`. */
  invalidate(tags: readonly string[]): void {
    for (const tag of tags) this.#epochs.set(tag, (this.#epochs.get(tag) ?? 0) + 1);
    const hit = (own: readonly string[]) => own.some((tag) => tags.includes(tag));
    for (const [key, entry] of this.#entries) if (hit(entry.tags)) this.#entries.delete(key);
    for (const [key, flight] of this.#flights) if (hit(flight.tags)) this.#flights.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  async #load<T>(key: string, ttlMs: number, tags: readonly string[], load: () => Promise<T>): Promise<T> {
    const epochs = tags.map((tag) => this.#epochs.get(tag) ?? 0);
    const promise = load();
    const flight: Flight = { promise, tags };
    this.#flights.set(key, flight);
    try {
      const value = await promise;
      const fresh = tags.every((tag, i) => (this.#epochs.get(tag) ?? 0) === epochs[i]);
      if (fresh && ttlMs > 0) this.#store(key, { value, expiresAt: this.#now() + ttlMs, tags });
      return value;
    } finally {
      // Failures are not cached: the next read tries the game server again.
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
    }
  }

  #store(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}
