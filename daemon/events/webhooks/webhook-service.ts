/**
 * Webhooks in a running daemon: keeps a delivery worker per enabled endpoint in step with
 * webhooks.json (polled like the other data dir files, so `modgate webhooks add|remove|enable`
 * reaches the daemon within a second), wakes the workers when the event log grows, and serves
 * the registry to the /v1/webhooks routes. Disabling an endpoint that keeps failing is written to
 * webhooks.json under the data dir lock and logged at error level.
 */
import { stat } from 'node:fs/promises';
import packageJson from '../../../package.json' with { type: 'json' };
import { join } from 'node:path';
import type { Logger } from '../../log.ts';
import { noopMetrics, type DaemonMetrics } from '../../metrics/metrics.ts';
import { errnoCode } from '../../store/errors.ts';
import type { EventLog } from '../types.ts';
import {
  MAX_ENDPOINTS,
  newEndpoint,
  readEndpoints,
  updateEndpoints,
  WEBHOOKS_FILE,
  type NewEndpoint,
  type WebhookEndpoint,
} from './endpoint-file.ts';
import { EndpointWorker, type WorkerDeps } from './endpoint-worker.ts';
import { OutboxJournal } from './outbox-journal.ts';
import type { EndpointOutbox } from './outbox-state.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { WebhookSender } from './sender.ts';
import type { WorkerHealth } from '../../worker-health.ts';

export interface WebhookServiceOptions {
  readonly dataDir: string;
  readonly log: EventLog;
  readonly serverId: string;
  readonly logger: Logger;
  /** Where each delivery attempt is counted (docs/metrics.md); nothing by default. */
  readonly metrics?: Pick<DaemonMetrics, 'webhookDelivery'> & Partial<Pick<DaemonMetrics, 'workerRestarted'>>;
  /** Where a delivery loop that failed and restarts is shown (/healthz, doctor). */
  readonly workerHealth?: WorkerHealth;
  /** Retry timing and limits; tests shrink them to milliseconds. */
  readonly policy?: Partial<RetryPolicy>;
  readonly pollIntervalMs?: number;
  readonly now?: () => Date;
  readonly random?: () => number;
}

export class RegistryFullError extends Error {}

export class WebhookService {
  #endpoints: readonly WebhookEndpoint[] = [];
  readonly #workers = new Map<string, EndpointWorker>();
  #fingerprint = '';
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #reloading: Promise<void> = Promise.resolve();
  readonly #unsubscribe: () => void;
  readonly #deps: WorkerDeps;

  private constructor(
    private readonly options: WebhookServiceOptions,
    readonly journal: OutboxJournal,
    private readonly sender: WebhookSender,
  ) {
    const now = options.now ?? (() => new Date());
    this.#deps = {
      log: options.log,
      journal,
      sender,
      policy: { ...DEFAULT_RETRY_POLICY, ...options.policy },
      logger: options.logger,
      metrics: options.metrics ?? noopMetrics,
      ...(options.workerHealth ? { workerHealth: options.workerHealth } : {}),
      serverId: options.serverId,
      userAgent: `modgate/${packageJson.version} (webhooks)`,
      now,
      random: options.random ?? Math.random,
      disable: (endpoint, reason) => this.#disable(endpoint, reason),
    };
    this.#unsubscribe = options.log.subscribe(() => {
      for (const worker of this.#workers.values()) worker.notify();
    });
  }

  static async start(options: WebhookServiceOptions): Promise<WebhookService> {
    const endpoints = await readEndpoints(options.dataDir);
    const journal = await OutboxJournal.open(
      options.dataDir,
      endpoints.map((endpoint) => endpoint.id),
    );
    const service = new WebhookService(options, journal, new WebhookSender());
    await service.reload();
    service.#schedule();
    return service;
  }

  list(): readonly WebhookEndpoint[] {
    return this.#endpoints;
  }

  get(id: string): WebhookEndpoint | undefined {
    return this.#endpoints.find((endpoint) => endpoint.id === id);
  }

  /** Position, failure run and recent attempts (oldest first) of a registered endpoint. */
  outbox(id: string): EndpointOutbox {
    return this.journal.state.get(id);
  }

  async create(input: NewEndpoint): Promise<WebhookEndpoint> {
    const created = newEndpoint(input, this.#deps.now());
    await updateEndpoints(this.options.dataDir, (current) => {
      if (current.length >= MAX_ENDPOINTS) throw new RegistryFullError(`at most ${MAX_ENDPOINTS} endpoints`);
      return [...current, created];
    });
    await this.reload();
    return created;
  }

  /** False when no such endpoint is registered. */
  async remove(id: string): Promise<boolean> {
    const update = await updateEndpoints(this.options.dataDir, (current) =>
      current.filter((endpoint) => endpoint.id !== id),
    );
    await this.reload();
    return update.changed;
  }

  /** Re-reads webhooks.json and starts, updates or stops workers to match. Never rejects. */
  reload(): Promise<void> {
    this.#reloading = this.#reloading.then(() => this.#load());
    return this.#reloading;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#unsubscribe();
    this.sender.destroy();
    await Promise.all([...this.#workers.values()].map((worker) => worker.stop()));
    this.#workers.clear();
    await this.#reloading;
    await this.journal.close();
  }

  async #load(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#fingerprint = await this.#fingerprintFile();
      this.#endpoints = await readEndpoints(this.options.dataDir);
    } catch (error) {
      this.options.logger.error('webhooks.json reload failed; keeping the endpoints as loaded', {
        error: (error as Error).message,
      });
      return;
    }
    const active = new Map(
      this.#endpoints.filter((endpoint) => endpoint.disabledAt === null).map((e) => [e.id, e]),
    );
    for (const [id, worker] of this.#workers) {
      const endpoint = active.get(id);
      if (endpoint && endpoint.enabledAt.getTime() === worker.endpoint.enabledAt.getTime()) {
        worker.update(endpoint);
        continue;
      }
      this.#workers.delete(id);
      await worker.stop();
    }
    if (this.#closed) return;
    for (const [id, endpoint] of active) {
      if (!this.#workers.has(id)) this.#workers.set(id, new EndpointWorker(endpoint, this.#deps));
    }
  }

  async #disable(endpoint: WebhookEndpoint, reason: string): Promise<void> {
    const at = this.#deps.now();
    this.options.logger.error('webhook endpoint disabled', {
      webhook_id: endpoint.id,
      url: endpoint.url,
      reason,
      fix: `modgate webhooks enable ${endpoint.id}`,
    });
    await updateEndpoints(this.options.dataDir, (current) =>
      current.map((candidate) =>
        candidate.id === endpoint.id && candidate.enabledAt.getTime() === endpoint.enabledAt.getTime()
          ? { ...candidate, disabledAt: at, disabledReason: reason }
          : candidate,
      ),
    ).catch((error: unknown) =>
      this.options.logger.error('could not record the disabled webhook in webhooks.json', { error }),
    );
    this.#workers.get(endpoint.id)?.update({ ...endpoint, disabledAt: at, disabledReason: reason });
    void this.reload();
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#poll(), this.options.pollIntervalMs ?? 250);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    try {
      if ((await this.#fingerprintFile()) !== this.#fingerprint) await this.reload();
    } finally {
      this.#schedule();
    }
  }

  async #fingerprintFile(): Promise<string> {
    try {
      const info = await stat(join(this.options.dataDir, WEBHOOKS_FILE));
      return `${info.ino}:${info.size}:${info.mtimeMs}:${info.mode}`;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return 'missing';
      throw error;
    }
  }
}
