/**
 * Logs a count once per interval instead of once per occurrence: a mod that floods the link with
 * refused events, or a reader that meets the same unreadable line a thousand times, produces one
 * log line a minute saying how many, by reason, not a thousand. The first occurrence after a
 * quiet interval is logged at once; the rest of that interval is summed and logged when it ends,
 * by a timer that runs only while there is something to report (idle means idle).
 */
import type { Logger } from '../log/log.ts';

export const REPORT_INTERVAL_MS = 60_000;

export class IntervalReport {
  #counts = new Map<string, number>();
  #fields: Record<string, unknown> = {};
  #lastLogged = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | null = null;
  readonly #log: Logger;
  readonly #message: string;
  readonly #intervalMs: number;
  readonly #now: () => number;

  constructor(
    log: Logger,
    message: string,
    intervalMs: number = REPORT_INTERVAL_MS,
    now: () => number = Date.now,
  ) {
    this.#log = log;
    this.#message = message;
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Counts `count` occurrences of `reason`; `fields` (the latest wins) go into the log line. */
  add(reason: string, count = 1, fields: Record<string, unknown> = {}): void {
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + count);
    this.#fields = { ...this.#fields, ...fields };
    if (this.#now() - this.#lastLogged >= this.#intervalMs) return this.#report();
    this.#timer ??= setTimeout(
      () => this.#report(),
      this.#lastLogged + this.#intervalMs - this.#now(),
    ).unref();
  }

  /** Logs what is still counted (a daemon stopping says what it refused last). */
  close(): void {
    if (this.#counts.size > 0) this.#report();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #report(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#lastLogged = this.#now();
    if (this.#counts.size === 0) return;
    this.#log.warn(this.#message, { ...this.#fields, counts: Object.fromEntries(this.#counts) });
    this.#counts = new Map();
    this.#fields = {};
  }
}
