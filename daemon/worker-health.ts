/**
 * Background loops that must not die for good (a webhook endpoint's delivery loop): `supervise`
 * runs one, and when it throws, logs the error, counts the restart in metrics, records it here and
 * runs it again after a backoff (1 s doubling to a minute; back to 1 s once a run has lasted a
 * minute). `WorkerHealth` is what `/healthz` shows as `worker_faults` (and `modgate doctor` as
 * its `workers` check): each loop that failed within the last five minutes, how often, and why.
 */
import type { Logger } from './log/log.ts';
import type { DaemonMetrics, WorkerLabel } from './metrics/metrics.ts';

export const RESTART_MIN_MS = 1_000;
export const RESTART_MAX_MS = 60_000;
/** How long a failure keeps a loop in `worker_faults` after its last restart. */
export const FAULT_SHOWN_MS = 5 * 60_000;

interface Fault {
  restarts: number;
  error: string;
  at: number;
}

export class WorkerHealth {
  readonly #faults = new Map<string, Fault>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  failed(name: string, error: string): void {
    const restarts = (this.#faults.get(name)?.restarts ?? 0) + 1;
    this.#faults.set(name, { restarts, error, at: this.#now() });
  }

  /** `name: restarted N times, last …: error` for each loop that failed recently. */
  get faults(): string[] {
    const now = this.#now();
    const recent: string[] = [];
    for (const [name, fault] of this.#faults) {
      if (now - fault.at > FAULT_SHOWN_MS) this.#faults.delete(name);
      else
        recent.push(
          `${name}: restarted ${fault.restarts} times, last ${new Date(fault.at).toISOString()}: ${fault.error}`,
        );
    }
    return recent;
  }
}

export interface SuperviseOptions {
  /** The metrics label, and the start of the name in `worker_faults`. */
  worker: WorkerLabel;
  /** Which one of its kind (a webhook id): the rest of the name. */
  id: string;
  logger: Logger;
  metrics: Partial<Pick<DaemonMetrics, 'workerRestarted'>>;
  health?: WorkerHealth | undefined;
  /** True once the owner stopped the loop: a failure then ends it instead of a restart. */
  stopped: () => boolean;
  /** Waits `ms`, or less when the owner stops meanwhile. */
  sleep: (ms: number) => Promise<void>;
  /** Clears what the failed run left half done, before the next run. */
  reset?: () => void;
  now?: () => number;
}

/** Runs `loop` until it returns; restarts it with a backoff each time it throws. */
export async function supervise(loop: () => Promise<void>, options: SuperviseOptions): Promise<void> {
  const now = options.now ?? Date.now;
  const name = `${options.worker} ${options.id}`;
  let delay = RESTART_MIN_MS;
  for (;;) {
    const started = now();
    try {
      await loop();
      return;
    } catch (error) {
      if (options.stopped()) return;
      if (now() - started >= RESTART_MAX_MS) delay = RESTART_MIN_MS;
      const message = error instanceof Error ? error.message : String(error);
      options.logger.error('background worker failed; restarting it after a backoff', {
        worker: name,
        error,
        restart_in_ms: delay,
      });
      options.metrics.workerRestarted?.(options.worker);
      options.health?.failed(name, message);
      await options.sleep(delay);
      delay = Math.min(RESTART_MAX_MS, delay * 2);
      if (options.stopped()) return;
      options.reset?.();
    }
  }
}
