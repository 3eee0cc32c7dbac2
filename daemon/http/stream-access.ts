/**
 * Re-authorizes open streams (docs/events.md, "When access ends"). The pipeline checks access
 * once, when a request arrives; a stream outlives that check by hours. So every open stream is
 * checked again, with the pipeline's own access stages, whenever the data dir changes (a revoked
 * key, a new allowlist, the API switched off, the plan changed: the watcher's change event) and
 * when a time-bound grant runs out with no file change at all (a key's expiry, the plan's end
 * date). A stream that would now be refused ends with that refusal as its final message.
 *
 * One timer at most, set for the earliest such instant among the open streams; none while no
 * stream is open or none has an end date.
 */
import type { Snapshot } from '../store/data-dir.ts';
import { ApiError } from './api-error.ts';

export interface WatchedStream {
  /**
   * Runs the access checks again: throws the ApiError a new request would get, else returns the
   * next instant (ms since the epoch) at which the verdict can change by time alone, or null.
   */
  recheck(snapshot: Snapshot, now: Date): number | null;
  /** Ends the stream with `error` as its final message. */
  revoke(error: ApiError): void;
}

export interface StreamAccessOptions {
  snapshot(): Snapshot;
  now(): number;
  /** Subscribes to data dir changes (the watcher's 'change' event). */
  onChange?: (listener: () => void) => void;
}

/** setTimeout's longest delay; a later deadline is looked at again then. */
const MAX_DELAY_MS = 2_147_483_647;

export class StreamAccess {
  readonly #streams = new Set<WatchedStream>();
  #timer: NodeJS.Timeout | null = null;
  /** When the timer fires (Infinity: no timer). */
  #deadline = Infinity;
  readonly #options: StreamAccessOptions;

  constructor(options: StreamAccessOptions) {
    this.#options = options;
    options.onChange?.(() => this.recheckAll());
  }

  /** Watches `stream` until the returned function is called (when the stream ends). */
  watch(stream: WatchedStream): () => void {
    this.#streams.add(stream);
    const now = this.#options.now();
    let next: number | null;
    try {
      next = stream.recheck(this.#options.snapshot(), new Date(now));
    } catch {
      next = now; // refused already (the data dir changed meanwhile): the timer ends it at once
    }
    if (next !== null) this.#armAt(next);
    return () => {
      this.#streams.delete(stream);
      if (this.#streams.size === 0) this.#disarm();
    };
  }

  /** Checks every open stream now, ending those refused, and sets the timer for what is left. */
  recheckAll(): void {
    this.#disarm();
    const snapshot = this.#options.snapshot();
    const now = new Date(this.#options.now());
    let next = Infinity;
    for (const stream of [...this.#streams]) {
      try {
        next = Math.min(next, stream.recheck(snapshot, now) ?? Infinity);
      } catch (error) {
        this.#streams.delete(stream);
        // A check that fails for another reason is a bug: the stream ends (a bare 500) rather
        // than staying open unchecked, and the daemon does not go down with it.
        stream.revoke(error instanceof ApiError ? error : new ApiError('internal'));
      }
    }
    if (next !== Infinity && this.#streams.size > 0) this.#armAt(next);
  }

  /** Open streams watched (for tests and diagnostics). */
  get size(): number {
    return this.#streams.size;
  }

  /** The one timer, for the earliest instant an open stream's access can lapse. */
  #armAt(at: number): void {
    if (this.#timer && at >= this.#deadline) return;
    this.#disarm();
    this.#deadline = at;
    const delay = Math.min(Math.max(at - this.#options.now(), 0), MAX_DELAY_MS);
    this.#timer = setTimeout(() => this.recheckAll(), delay);
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#deadline = Infinity;
  }
}
