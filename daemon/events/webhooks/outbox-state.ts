/**
 * What the outbox journal's lines mean, folded into each endpoint's state: its position in the
 * event log (the last event it is done with), the run of failures on the message it is stuck on,
 * and its recent attempts for `webhooks deliveries`. Folding is idempotent and keeps maxima, so a
 * compacted journal (a position marker, then the recent lines) folds to the same state.
 */

/** One line of the journal. */
export interface OutboxRecord {
  readonly endpoint: string;
  /**
   * `delivered` and `failed` are attempts; `skipped` moves past events the endpoint does not
   * subscribe to; `gap` moves past events retention dropped before they could be delivered.
   */
  readonly outcome: 'delivered' | 'failed' | 'skipped' | 'gap';
  readonly at: string;
  /** The events the message carried (one for the standard format, up to ten for Discord). */
  readonly first_event: number;
  readonly last_event: number;
  readonly message_id: string | null;
  /** 1 for the first attempt at this message; counts across restarts. */
  readonly attempt: number | null;
  /** When this message's first failed attempt happened (failed lines only). */
  readonly run_started_at: string | null;
  /** The HTTP status of the answer; null when there was none (refused, timed out). */
  readonly status: number | null;
  readonly latency_ms: number | null;
  readonly error: string | null;
  /** The wait before the next attempt (failed lines only). */
  readonly retry_in_ms: number | null;
}

/** A message that has failed at least once and is not delivered yet. */
export interface FailureRun {
  readonly firstEvent: number;
  readonly attempts: number;
  readonly startedAt: Date;
}

export interface EndpointOutbox {
  position: number;
  run: FailureRun | null;
  /** The newest attempts (and gaps), oldest first, at most RECENT_ATTEMPTS. */
  recent: OutboxRecord[];
}

export const RECENT_ATTEMPTS = 100;

export class OutboxState {
  readonly #endpoints = new Map<string, EndpointOutbox>();

  get(endpoint: string): EndpointOutbox {
    let state = this.#endpoints.get(endpoint);
    if (!state) {
      state = { position: 0, run: null, recent: [] };
      this.#endpoints.set(endpoint, state);
    }
    return state;
  }

  has(endpoint: string): boolean {
    return this.#endpoints.has(endpoint);
  }

  ids(): string[] {
    return [...this.#endpoints.keys()];
  }

  forget(endpoint: string): void {
    this.#endpoints.delete(endpoint);
  }

  apply(record: OutboxRecord): void {
    const state = this.get(record.endpoint);
    if (record.outcome === 'failed') {
      if (record.first_event > state.position) state.run = extendRun(state.run, record);
    } else if (record.last_event > state.position) {
      state.position = record.last_event;
      if (state.run && state.run.firstEvent <= state.position) state.run = null;
    }
    if (record.outcome !== 'skipped') {
      state.recent.push(record);
      if (state.recent.length > RECENT_ATTEMPTS)
        state.recent.splice(0, state.recent.length - RECENT_ATTEMPTS);
    }
  }

  /** The lines a compacted journal keeps: per endpoint, its position, then its recent lines. */
  compacted(): OutboxRecord[] {
    const lines: OutboxRecord[] = [];
    for (const [endpoint, state] of this.#endpoints) {
      if (state.position > 0) lines.push(positionMarker(endpoint, state.position, new Date()));
      lines.push(...state.recent);
    }
    return lines;
  }
}

function extendRun(run: FailureRun | null, record: OutboxRecord): FailureRun {
  const startedAt = new Date(record.run_started_at ?? record.at);
  if (run === null || run.firstEvent !== record.first_event) {
    return { firstEvent: record.first_event, attempts: record.attempt ?? 1, startedAt };
  }
  return {
    firstEvent: run.firstEvent,
    attempts: Math.max(run.attempts, record.attempt ?? run.attempts + 1),
    startedAt: startedAt < run.startedAt ? startedAt : run.startedAt,
  };
}

export function positionMarker(endpoint: string, position: number, at: Date): OutboxRecord {
  return {
    endpoint,
    outcome: 'skipped',
    at: at.toISOString(),
    first_event: position,
    last_event: position,
    message_id: null,
    attempt: null,
    run_started_at: null,
    status: null,
    latency_ms: null,
    error: null,
    retry_in_ms: null,
  };
}

/** One journal line, or null for a torn or foreign line (a crash mid-append). */
export function parseOutboxLine(line: string): OutboxRecord | null {
  try {
    const value = JSON.parse(line) as Partial<OutboxRecord>;
    const valid =
      typeof value.endpoint === 'string' &&
      typeof value.at === 'string' &&
      typeof value.first_event === 'number' &&
      typeof value.last_event === 'number' &&
      ['delivered', 'failed', 'skipped', 'gap'].includes(value.outcome as string);
    return valid ? (value as OutboxRecord) : null;
  } catch {
    return null;
  }
}
