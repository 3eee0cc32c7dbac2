/**
 * Requests answered over the last hour, by minute and status class, for GET /admin/v1/status and
 * the panel's chart (docs/admin.md). The daemon's Prometheus counters exist only with a metrics
 * listener; this is a fixed ring of 60 one-minute buckets kept whatever the settings: bounded
 * memory, no timer (idle means idle), a count is two array writes.
 */

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

export type ClassCounts = Record<StatusClass, number>;

/** One minute of the window: when it began and what was answered in it. */
export interface MinuteCounts extends ClassCounts {
  minute: string;
}

export const RECENT_MINUTES = 60;
const MINUTE_MS = 60_000;

export class RecentRequests {
  /** counts[slot * 4 + class]; slot = minute number modulo RECENT_MINUTES. */
  readonly #counts = new Float64Array(RECENT_MINUTES * STATUS_CLASSES.length);
  /** The minute number each slot holds, or -1; a slot of an older minute is reset on use. */
  readonly #minutes = new Float64Array(RECENT_MINUTES).fill(-1);
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** One answered request (statuses below 200 and 499s of clients gone are not counted). */
  count(status: number): void {
    const index = classIndex(status);
    if (index < 0) return;
    const slot = this.#slot(Math.floor(this.#now() / MINUTE_MS));
    const at = slot * STATUS_CLASSES.length + index;
    this.#counts[at] = (this.#counts[at] ?? 0) + 1;
  }

  /** The last RECENT_MINUTES minutes, oldest first, the current one included. */
  perMinute(): MinuteCounts[] {
    const current = Math.floor(this.#now() / MINUTE_MS);
    const minutes: MinuteCounts[] = [];
    for (let minute = current - RECENT_MINUTES + 1; minute <= current; minute++) {
      const slot = minute % RECENT_MINUTES;
      const held = this.#minutes[slot] === minute;
      const counts = {} as ClassCounts;
      STATUS_CLASSES.forEach((name, i) => {
        counts[name] = held ? (this.#counts[slot * STATUS_CLASSES.length + i] ?? 0) : 0;
      });
      minutes.push({ minute: new Date(minute * MINUTE_MS).toISOString(), ...counts });
    }
    return minutes;
  }

  /** The sums over the window. */
  totals(): ClassCounts {
    const totals: ClassCounts = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
    for (const minute of this.perMinute()) for (const name of STATUS_CLASSES) totals[name] += minute[name];
    return totals;
  }

  #slot(minute: number): number {
    const slot = minute % RECENT_MINUTES;
    if (this.#minutes[slot] !== minute) {
      this.#minutes[slot] = minute;
      this.#counts.fill(0, slot * STATUS_CLASSES.length, (slot + 1) * STATUS_CLASSES.length);
    }
    return slot;
  }
}

function classIndex(status: number): number {
  if (status < 200 || status > 599 || status === 499) return -1;
  return Math.floor(status / 100) - 2;
}
