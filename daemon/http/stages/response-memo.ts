/**
 * Finished cached reads, so that a repeat of the same read inside its cache window skips the
 * handler. A handler on a cacheable GET route that returns exactly what one of its reads (or
 * pages) returned, and called the mod no other way, answers with a pure function of those
 * reads, the key and the request target. The memo keeps that answer's representation with the
 * read-cache entries it came from, by key id, route and raw target; it is used only while every
 * one of those entries is still the live, fresh one, so an invalidation, an expiry or a newer
 * read makes the next request run the handler again. Authentication, the limits, scopes and
 * validation run before it on every request, and the request log and metrics after it.
 */
import type { Representation } from '../representations.ts';

/** One read a handler made: the read cache's key and the value it was given. */
export interface MemoRead {
  key: string;
  value: unknown;
}

export interface Memo {
  reads: readonly MemoRead[];
  representation: Representation;
}

/** Targets longer than this are not kept (as ValidatedInputs does). */
const MAX_KEY_LENGTH = 512;

export class ResponseMemo {
  readonly #entries = new Map<string, Memo>();

  constructor(readonly maxEntries = 512) {}

  /** The memo for `key` if `live` holds for each of its reads; a stale one is dropped. */
  lookup(key: string, live: (read: MemoRead) => boolean): Memo | undefined {
    const memo = this.#entries.get(key);
    if (memo === undefined) return undefined;
    if (memo.reads.every(live)) return memo;
    this.#entries.delete(key);
    return undefined;
  }

  remember(key: string, memo: Memo): void {
    if (key.length > MAX_KEY_LENGTH) return;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, memo);
  }
}

/**
 * What one request's handler read, to decide afterwards whether its answer may be memoized:
 * the values its reads and pages returned, and whether it called the mod directly.
 */
export class ReadRecord {
  readonly reads: MemoRead[] = [];
  readonly #returned = new Set<unknown>();
  #direct = false;

  read(key: string, value: unknown): void {
    this.reads.push({ key, value });
    this.#returned.add(value);
  }

  returned(value: unknown): void {
    this.#returned.add(value);
  }

  called(): void {
    this.#direct = true;
  }

  /** True when `result` is one of the values a read or page gave, and nothing else ran. */
  answeredWith(result: unknown): boolean {
    return !this.#direct && this.reads.length > 0 && this.#returned.has(result);
  }
}
