/**
 * Webhooks in a running daemon: keeps a delivery worker per enabled endpoint in step with
 * webhooks.json (reloaded after each change made through the daemon, /v1 or the admin API, which
 * `modgate webhooks` uses while the daemon runs, and on `modgate reload`; nothing polls it), wakes the workers when the event log grows, and serves
 * the registry to the /v1/webhooks routes. Disabling an endpoint that keeps failing is written to
 * webhooks.json under the data dir lock and logged at error level. So is disabling the endpoints
 * of an API key that was revoked or expired (`key_revoked`, `key_expired`): checked whenever the
 * keys change and before every attempt. Which addresses an endpoint may reach depends on who
 * registered it (address-policy.ts): the service holds the operator's allowed networks and the
 * daemon's own listeners, and answers the registration check of the /v1 routes.
 */
import packageJson from '../../../package.json' with { type: 'json' };
import type { HostPort } from '../../host-port.ts';
import type { Logger } from '../../log/log.ts';
import { apiKeyStatus } from '../../store/api-keys.ts';
import type { ApiKeyRecord } from '../../store/keys-file.ts';
import { noopMetrics, type DaemonMetrics } from '../../metrics/metrics.ts';
import type { EventLog } from '../types.ts';
import { checkTarget, systemResolver, type AddressRule, type Resolver } from './address-policy.ts';
import {
  newEndpoint,
  readEndpoints,
  updateEndpoints,
  type NewEndpoint,
  type WebhookEndpoint,
} from './endpoint-file.ts';
import {
  addEndpoint,
  disableEndpoint,
  editEndpoint,
  enableEndpoint,
  rotateSecret,
  type EndpointEdit,
} from './endpoint-changes.ts';
import { EndpointWorker, sendSigned, type WorkerDeps } from './endpoint-worker.ts';
import { OutboxJournal } from './outbox-journal.ts';
import type { EndpointOutbox } from './outbox-state.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { WebhookSender } from './sender.ts';
import { testMessageBody, testMessageId, testOutcome, type TestOutcome } from './test-message.ts';
import type { WorkerHealth } from '../../worker-health.ts';

export interface WebhookServiceOptions {
  readonly dataDir: string;
  readonly eventLog: EventLog;
  readonly serverId: string;
  readonly logger: Logger;
  /** Where each delivery attempt is counted (docs/metrics.md); nothing by default. */
  readonly metrics?: Pick<DaemonMetrics, 'webhookDelivery'> & Partial<Pick<DaemonMetrics, 'workerRestarted'>>;
  /** Where a delivery loop that failed and restarts is shown (/healthz, doctor). */
  readonly workerHealth?: WorkerHealth;
  /** Retry timing and limits; tests shrink them to milliseconds. */
  readonly policy?: Partial<RetryPolicy>;
  readonly now?: () => Date;
  readonly random?: () => number;
  /** Where endpoints may connect; by default public addresses, and loopback for the operator. */
  readonly network?: WebhookNetworkOptions;
  /** The API keys as loaded (the data dir snapshot), to disable the endpoints of dead keys. */
  readonly keys?: () => ReadonlyMap<string, ApiKeyRecord>;
  /**
   * The registry without delivery: the CLI's in-process admin while no daemon runs
   * (daemon/admin/offline-services.ts). No workers start, the outbox is read and never written,
   * keys are not enforced, and a registration's address is not resolved: the daemon checks it at
   * every attempt, against the `[webhooks] allow_networks` only serve's config file holds.
   */
  readonly registryOnly?: boolean;
}

export interface WebhookNetworkOptions {
  /** `[webhooks] allow_networks`: canonical CIDRs the operator's endpoints may also reach. */
  readonly allowNetworks?: readonly string[];
  /** The daemon's own listeners (API, mod link, metrics, admin), known once they listen. */
  readonly ownListeners?: () => readonly HostPort[];
  /** Name resolution; tests inject one (a name that turns private after registration). */
  readonly resolve?: Resolver;
  /**
   * Networks a key's endpoints may reach besides public addresses. Not in the config file: the
   * API can never reach a private network. In-process tests use it to aim a key's endpoint at a
   * receiver on loopback.
   */
  readonly keyNetworksForTests?: readonly string[];
}

/** How long registration waits for a name to resolve before refusing it. */
export const REGISTRATION_LOOKUP_TIMEOUT_MS = 5_000;

export class WebhookService {
  #endpoints: readonly WebhookEndpoint[] = [];
  readonly #workers = new Map<string, EndpointWorker>();
  #closed = false;
  #reloading: Promise<void> = Promise.resolve();
  #allowNetworks: readonly string[];
  /** `id@enabledAt` of the endpoints disabled so far: the worker and a keys change may both try. */
  readonly #disabled = new Set<string>();
  readonly #unsubscribe: () => void;
  readonly #deps: WorkerDeps;
  readonly #options: WebhookServiceOptions;
  readonly #sender: WebhookSender;
  /** Fires when the next key that owns an enabled endpoint expires (armKeyExpiry). */
  #keyExpiry: NodeJS.Timeout | undefined;

  private constructor(
    options: WebhookServiceOptions,
    readonly journal: OutboxJournal,
    sender: WebhookSender,
  ) {
    this.#options = options;
    this.#sender = sender;
    const now = options.now ?? (() => new Date());
    this.#deps = {
      eventLog: options.eventLog,
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
      ruleFor: (endpoint) => this.ruleFor(endpoint.createdBy),
      ownerProblem: (endpoint) => this.#ownerProblem(endpoint),
    };
    this.#allowNetworks = options.network?.allowNetworks ?? [];
    this.#unsubscribe = options.eventLog.subscribe(() => {
      for (const worker of this.#workers.values()) worker.notify();
    });
  }

  static async start(options: WebhookServiceOptions): Promise<WebhookService> {
    const endpoints = await readEndpoints(options.dataDir);
    const ids = endpoints.map((endpoint) => endpoint.id);
    const journal = options.registryOnly
      ? await OutboxJournal.read(options.dataDir, ids)
      : await OutboxJournal.open(options.dataDir, ids);
    const sender = new WebhookSender(options.network?.resolve ?? systemResolver);
    const service = new WebhookService(options, journal, sender);
    await service.reload();
    return service;
  }

  list(): readonly WebhookEndpoint[] {
    return this.#endpoints;
  }

  /** The endpoints one API key registered: all a key may see. */
  ownedBy(keyId: string): readonly WebhookEndpoint[] {
    return this.#endpoints.filter((endpoint) => endpoint.createdBy === keyId);
  }

  /**
   * Where an endpoint registered by `createdBy` (an API key id; null: the operator) may connect:
   * a key's, public addresses only; the operator's, loopback and its allowed networks too.
   */
  ruleFor(createdBy: string | null): AddressRule {
    const ownListeners = this.#options.network?.ownListeners?.() ?? [];
    if (createdBy !== null) {
      return { loopback: false, networks: this.#options.network?.keyNetworksForTests ?? [], ownListeners };
    }
    return { loopback: true, networks: this.#allowNetworks, ownListeners, namesListeners: true };
  }

  /** The registration check: null when `url` may be registered by `createdBy`, else why not. */
  async checkTarget(url: URL, createdBy: string | null): Promise<string | null> {
    if (this.#options.registryOnly) return null;
    return checkTarget(
      url,
      this.ruleFor(createdBy),
      this.#options.network?.resolve ?? systemResolver,
      REGISTRATION_LOOKUP_TIMEOUT_MS,
    );
  }

  /** A SIGHUP's `[webhooks] allow_networks`; kept connections are dropped so they are rechecked. */
  setAllowNetworks(networks: readonly string[]): void {
    const same =
      networks.length === this.#allowNetworks.length &&
      networks.every((n, i) => n === this.#allowNetworks[i]);
    if (same) return;
    this.#allowNetworks = [...networks];
    this.#sender.resetConnections();
  }

  /**
   * Disables every enabled endpoint whose key was revoked or has expired (the keys changed, or
   * the next expiry came), and arms the timer for the next expiry.
   */
  async enforceKeys(): Promise<void> {
    this.#armKeyExpiry();
    for (const endpoint of this.#endpoints) {
      const problem = endpoint.disabledAt === null ? this.#ownerProblem(endpoint) : null;
      if (problem !== null) await this.#disable(endpoint, problem);
    }
  }

  /**
   * One timer, at the earliest expiry to come among the keys of enabled endpoints: an expired
   * key's endpoints are disabled when it expires, as a revoked key's are when it is revoked, not
   * at their next event (the operator could re-enable them until then). Re-armed by every
   * enforceKeys: a keys change (reactions.ts) and a webhooks.json reload.
   */
  #armKeyExpiry(): void {
    clearTimeout(this.#keyExpiry);
    this.#keyExpiry = undefined;
    const keys = this.#options.keys?.();
    if (this.#closed || this.#options.registryOnly || keys === undefined) return;
    const now = this.#deps.now().getTime();
    let next = Infinity;
    for (const endpoint of this.#endpoints) {
      if (endpoint.disabledAt !== null || endpoint.createdBy === null) continue;
      const expires = keys.get(endpoint.createdBy)?.expiresAt?.getTime() ?? Infinity;
      if (expires > now) next = Math.min(next, expires);
    }
    if (next === Infinity) return;
    // setTimeout holds at most 2^31-1 ms (about 24 days); a later expiry is re-armed on waking.
    const delay = Math.min(next - now, 2 ** 31 - 1);
    this.#keyExpiry = setTimeout(() => void this.enforceKeys(), delay).unref();
  }

  get(id: string): WebhookEndpoint | undefined {
    return this.#endpoints.find((endpoint) => endpoint.id === id);
  }

  /** Position, failure run and recent attempts (oldest first) of a registered endpoint. */
  outbox(id: string): EndpointOutbox {
    return this.journal.state.get(id);
  }

  /** Registers an endpoint that receives the events logged from now on. */
  async create(input: Omit<NewEndpoint, 'startAfter'>): Promise<WebhookEndpoint> {
    const created = newEndpoint({ ...input, startAfter: this.#options.eventLog.lastId() }, this.#deps.now());
    await updateEndpoints(this.#options.dataDir, (current) => addEndpoint(current, created));
    await this.reload();
    return created;
  }

  /** False when no such endpoint is registered. */
  async remove(id: string): Promise<boolean> {
    const update = await updateEndpoints(this.#options.dataDir, (current) =>
      current.filter((endpoint) => endpoint.id !== id),
    );
    await this.reload();
    return update.changed;
  }

  /**
   * Changes an endpoint's events or description (endpoint-changes.ts); its worker sends the new
   * selection from its next message on. The endpoint as changed.
   */
  async edit(id: string, edit: EndpointEdit): Promise<WebhookEndpoint> {
    await updateEndpoints(this.#options.dataDir, (current) => editEndpoint(current, id, edit));
    await this.reload();
    return this.get(id) as WebhookEndpoint;
  }

  /**
   * Re-enables a disabled endpoint (endpoint-changes.ts: not one whose key is gone); false when
   * it was enabled already. Its worker starts before this returns.
   */
  async enable(id: string): Promise<boolean> {
    const update = await updateEndpoints(this.#options.dataDir, (current) =>
      enableEndpoint(current, id, this.#deps.now(), (endpoint) => this.#ownerProblem(endpoint)),
    );
    await this.reload();
    return update.changed;
  }

  /**
   * Disables an endpoint at the operator's word (endpoint-changes.ts); false when it was disabled
   * already. Its worker has stopped before this returns; its position stays for `enable`.
   */
  async disable(id: string): Promise<boolean> {
    const update = await updateEndpoints(this.#options.dataDir, (current) =>
      disableEndpoint(current, id, this.#deps.now()),
    );
    await this.reload();
    return update.changed;
  }

  /**
   * A new secret for the endpoint; the old one keeps signing for `overlapSec` seconds
   * (endpoint-changes.ts). The next attempt, even a retry in progress, signs with both.
   */
  async rotateSecret(id: string, overlapSec: number): Promise<WebhookEndpoint> {
    let rotated: WebhookEndpoint | undefined;
    await updateEndpoints(this.#options.dataDir, (current) => {
      const rotation = rotateSecret(current, id, overlapSec, this.#deps.now());
      rotated = rotation.rotated;
      return rotation.endpoints;
    });
    await this.reload();
    return rotated as WebhookEndpoint;
  }

  /** Sends one signed test message to a registered endpoint now (test-message.ts); undefined if none. */
  async sendTest(id: string): Promise<TestOutcome | undefined> {
    const endpoint = this.get(id);
    if (!endpoint) return undefined;
    const at = this.#deps.now();
    const messageId = testMessageId(this.#options.serverId);
    const result = await sendSigned(this.#deps, endpoint, messageId, testMessageBody(endpoint, at), at);
    return testOutcome(result, messageId, at);
  }

  /** Re-reads webhooks.json and starts, updates or stops workers to match. Never rejects. */
  reload(): Promise<void> {
    this.#reloading = this.#reloading.then(() => this.#load());
    return this.#reloading;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#keyExpiry);
    this.#unsubscribe();
    this.#sender.destroy();
    await Promise.all([...this.#workers.values()].map((worker) => worker.stop()));
    this.#workers.clear();
    await this.#reloading;
    await this.journal.close();
  }

  async #load(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#endpoints = await readEndpoints(this.#options.dataDir);
    } catch (error) {
      this.#options.logger.error('webhooks.json reload failed; keeping the endpoints as loaded', {
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
    if (this.#options.registryOnly) return;
    for (const [id, endpoint] of active) {
      if (!this.#workers.has(id)) this.#workers.set(id, new EndpointWorker(endpoint, this.#deps));
    }
    void this.enforceKeys();
  }

  #ownerProblem(endpoint: WebhookEndpoint): string | null {
    if (endpoint.createdBy === null || !this.#options.keys) return null;
    const key = this.#options.keys().get(endpoint.createdBy);
    // A key that is gone from keys.json cannot be used any more: as good as revoked.
    if (key === undefined) return 'key_revoked';
    const status = apiKeyStatus(key, this.#deps.now());
    return status === 'active' ? null : `key_${status}`;
  }

  async #disable(endpoint: WebhookEndpoint, reason: string): Promise<void> {
    const once = `${endpoint.id}@${endpoint.enabledAt.getTime()}`;
    if (this.#disabled.has(once)) return;
    this.#disabled.add(once);
    const at = this.#deps.now();
    // Not the URL: a Discord webhook URL carries its token.
    this.#options.logger.error('webhook endpoint disabled', {
      webhook_id: endpoint.id,
      reason,
      fix: reason.startsWith('key_')
        ? `the key that registered it no longer works; remove it: modgate webhooks remove ${endpoint.id}`
        : `modgate webhooks enable ${endpoint.id}`,
    });
    await updateEndpoints(this.#options.dataDir, (current) =>
      current.map((candidate) =>
        candidate.id === endpoint.id &&
        candidate.disabledAt === null &&
        candidate.enabledAt.getTime() === endpoint.enabledAt.getTime()
          ? { ...candidate, disabledAt: at, disabledReason: reason }
          : candidate,
      ),
    ).catch((error: unknown) =>
      this.#options.logger.error('could not record the disabled webhook in webhooks.json', { error }),
    );
    this.#workers.get(endpoint.id)?.update({ ...endpoint, disabledAt: at, disabledReason: reason });
    void this.reload();
  }
}
