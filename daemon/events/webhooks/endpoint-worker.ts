/**
 * One endpoint's delivery loop: a reader of the event log at the endpoint's own position
 * (events are a log: resume and retry are the same operation, docs/events.md). It takes the next
 * event the endpoint subscribes to (up to ten for Discord), signs and posts it, and only moves on
 * once it is delivered, so each endpoint receives its events in log order. A failure is recorded
 * in the outbox journal and retried after a backoff (retry-policy.ts); the same message keeps
 * the same `webhook-id` on every attempt and across restarts, so a receiver can dedupe.
 */
import type { Logger } from '../../log/log.ts';
import type { DaemonMetrics } from '../../metrics/metrics.ts';
import { eventView } from '../payloads.ts';
import type { AddressRule } from './address-policy.ts';
import type { EventLog, StoredEvent } from '../types.ts';
import { discordMessage, discordRetryAfterMs } from './discord.ts';
import { signingSecrets, wantsEvent, type WebhookEndpoint } from './endpoint-file.ts';
import type { OutboxJournal } from './outbox-journal.ts';
import { positionMarker, type FailureRun, type OutboxRecord } from './outbox-state.ts';
import { backoffDelay, giveUpReason, honouredWait, type RetryPolicy } from './retry-policy.ts';
import type { SendResult, WebhookSender } from './sender.ts';
import { signatureHeaders } from './signing.ts';
import { checkWebhookUrl } from './url-policy.ts';
import { supervise, type WorkerHealth } from '../../worker-health.ts';

export interface WorkerDeps {
  readonly eventLog: EventLog;
  readonly journal: OutboxJournal;
  readonly sender: WebhookSender;
  readonly policy: RetryPolicy;
  readonly logger: Logger;
  /** Each attempt's outcome and duration, and restarts of the loop (docs/metrics.md). */
  readonly metrics: Pick<DaemonMetrics, 'webhookDelivery'> & Partial<Pick<DaemonMetrics, 'workerRestarted'>>;
  /** Where a failed loop is shown (/healthz `worker_faults`, doctor). */
  readonly workerHealth?: WorkerHealth;
  readonly serverId: string;
  readonly userAgent: string;
  readonly now: () => Date;
  readonly random: () => number;
  /** Marks the endpoint disabled in webhooks.json (and logs it). */
  disable(endpoint: WebhookEndpoint, reason: string): Promise<void>;
  /** Where this endpoint may connect (address-policy.ts), asked at every attempt. */
  ruleFor(endpoint: WebhookEndpoint): AddressRule;
  /** `key_revoked` or `key_expired` when the key that registered it no longer works; else null. */
  ownerProblem(endpoint: WebhookEndpoint): string | null;
}

const READ_BATCH = 256;
const SENSITIVE_VIEW = eventView(['players:read_sensitive']);
const REDACTED_VIEW = eventView([]);

export class EndpointWorker {
  #endpoint: WebhookEndpoint;
  /** The last event looked at: the journal's position, or past events skipped since. */
  #cursor: number;
  /** Events read ahead from the log and not looked at yet (one read serves many messages). */
  #ahead: StoredEvent[] = [];
  #aheadIndex = 0;
  #stopped = false;
  #signalled = false;
  #wake: (() => void) | null = null;
  #cancelSleep: (() => void) | null = null;
  readonly #done: Promise<void>;
  readonly #deps: WorkerDeps;

  constructor(endpoint: WebhookEndpoint, deps: WorkerDeps) {
    this.#deps = deps;
    this.#endpoint = endpoint;
    // A new endpoint starts at the log's end as it was at registration (docs/events.md).
    this.#cursor = Math.max(deps.journal.state.get(endpoint.id).position, endpoint.startAfter);
    // A loop that throws (a read or journal write on a failing disk) is restarted, not lost.
    this.#done = supervise(() => this.#run(), {
      worker: 'webhook',
      id: endpoint.id,
      logger: deps.logger,
      metrics: deps.metrics,
      health: deps.workerHealth,
      stopped: () => this.#stopped,
      sleep: (ms) => this.#sleep(ms),
      reset: () => {
        this.#ahead = [];
        this.#aheadIndex = 0;
      },
    });
  }

  get endpoint(): WebhookEndpoint {
    return this.#endpoint;
  }

  /** Takes the endpoint's new settings (events, description) for the next message. */
  update(endpoint: WebhookEndpoint): void {
    this.#endpoint = endpoint;
  }

  /** New events are in the log. */
  notify(): void {
    this.#signalled = true;
    this.#wake?.();
  }

  /** Stops after the attempt in flight (which the sender cancels on shutdown). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    this.#cancelSleep?.();
    await this.#done;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      this.#signalled = false;
      if (this.#aheadIndex >= this.#ahead.length) {
        const batch = this.#deps.eventLog.readAfter(this.#cursor, READ_BATCH);
        if (!Array.isArray(batch)) {
          await this.#skipGap(batch.oldestId - 1);
        } else if (batch.length === 0) {
          await this.#persistSkips();
          await this.#idle();
        } else {
          this.#ahead = batch;
          this.#aheadIndex = 0;
        }
        continue;
      }
      const message = this.#pick();
      if (message.length > 0 && !(await this.#deliver(message))) return;
    }
  }

  /**
   * The next message's events from the read-ahead; moves the cursor past events the endpoint
   * does not want. A Discord message takes up to ten events, only from what is read ahead.
   */
  #pick(): StoredEvent[] {
    const max = this.#endpoint.format === 'discord' ? 10 : 1;
    const wanted: StoredEvent[] = [];
    while (this.#aheadIndex < this.#ahead.length && wanted.length < max) {
      const event = this.#ahead[this.#aheadIndex] as StoredEvent;
      if (wantsEvent(this.#endpoint, event.type)) wanted.push(event);
      else if (wanted.length === 0) this.#cursor = event.id;
      this.#aheadIndex += 1;
    }
    return wanted;
  }

  /** Retention dropped events this endpoint had not received: say so, record it, move on. */
  async #skipGap(to: number): Promise<void> {
    this.#deps.logger.error('webhook endpoint missed events dropped by retention', {
      webhook_id: this.#endpoint.id,
      after: this.#cursor,
      resumes_after: to,
    });
    const at = this.#deps.now();
    await this.#deps.journal.append({
      ...positionMarker(this.#endpoint.id, to, at),
      outcome: 'gap',
      first_event: this.#cursor + 1,
      error: 'events_dropped',
    });
    this.#cursor = to;
  }

  async #persistSkips(): Promise<void> {
    const id = this.#endpoint.id;
    if (this.#cursor > this.#deps.journal.state.get(id).position) {
      await this.#deps.journal.append(positionMarker(id, this.#cursor, this.#deps.now()));
    }
  }

  #idle(): Promise<void> {
    if (this.#signalled || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = null;
        resolve();
      };
    });
  }

  /** Delivers one message, retrying; false when the worker stopped or the endpoint was disabled. */
  async #deliver(events: StoredEvent[]): Promise<boolean> {
    const first = events[0] as StoredEvent;
    const messageId = `msg_${this.#deps.serverId}_${first.id}`;
    let run = this.#runFor(first.id);
    for (;;) {
      if (this.#stopped) return false;
      const endpoint = this.#endpoint;
      const ownerProblem = this.#deps.ownerProblem(endpoint);
      if (ownerProblem !== null) {
        await this.#deps.disable(endpoint, ownerProblem);
        return false;
      }
      const { body, carried } = this.#body(events);
      const last = carried[carried.length - 1] as StoredEvent;
      const attempt = (run?.attempts ?? 0) + 1;
      const at = this.#deps.now();
      const result = await sendSigned(this.#deps, endpoint, messageId, body, at);
      // Cancelled by shutdown: the receiver may or may not have it; the next start resends it.
      if (this.#stopped && !result.ok) return false;
      const base = {
        endpoint: endpoint.id,
        at: at.toISOString(),
        first_event: first.id,
        last_event: last.id,
      };
      const answer = { message_id: messageId, attempt, status: result.status, latency_ms: result.latencyMs };
      const seconds = result.latencyMs / 1000;
      if (result.ok) {
        this.#deps.metrics.webhookDelivery('delivered', seconds);
        this.#recordDelivered({
          ...base,
          ...answer,
          outcome: 'delivered',
          run_started_at: null,
          error: null,
          retry_in_ms: null,
        });
        this.#cursor = Math.max(this.#cursor, last.id);
        return true;
      }
      const runStartedAt = run?.startedAt ?? at;
      run = { firstEvent: first.id, attempts: attempt, startedAt: runStartedAt };
      const reason = giveUpReason(
        this.#deps.policy,
        { status: result.status, runStartedAt, attempts: attempt },
        this.#deps.now(),
      );
      const wait = reason === null ? this.#retryWait(result, attempt) : null;
      this.#deps.metrics.webhookDelivery(reason === null ? 'failed' : 'gave_up', seconds);
      const record: OutboxRecord = {
        ...base,
        ...answer,
        outcome: 'failed',
        run_started_at: runStartedAt.toISOString(),
        error: result.failure,
        retry_in_ms: wait,
      };
      await this.#deps.journal.append(record);
      this.#deps.logger.warn('webhook delivery failed', {
        webhook_id: endpoint.id,
        message_id: messageId,
        attempt,
        status: result.status,
        failure: result.failure,
        retry_in_ms: wait,
      });
      // The underlying error's text, never the URL (a Discord URL carries its token).
      this.#deps.logger.debug('webhook delivery failure detail', {
        webhook_id: endpoint.id,
        message_id: messageId,
        detail: result.detail,
      });
      if (reason !== null) {
        await this.#deps.disable(endpoint, reason);
        return false;
      }
      await this.#sleep(wait ?? 0);
    }
  }

  /**
   * Not awaited: the next message goes out while this line is fsync'd (the journal writes lines
   * in order). A crash before the sync only means this message is sent again after the restart,
   * with the same webhook-id: at least once, never skipped.
   */
  #recordDelivered(record: OutboxRecord): void {
    this.#deps.journal.append(record).catch((error: unknown) =>
      this.#deps.logger.error('webhook outbox journal write failed', {
        webhook_id: record.endpoint,
        error,
      }),
    );
  }

  /** The journal's failure run for this message, restarted at a re-enable. */
  #runFor(firstEvent: number): FailureRun | null {
    const run = this.#deps.journal.state.get(this.#endpoint.id).run;
    if (run === null || run.firstEvent !== firstEvent) return null;
    const enabledAt = this.#endpoint.enabledAt;
    return run.startedAt < enabledAt ? { ...run, startedAt: enabledAt } : run;
  }

  #body(events: StoredEvent[]): { body: Buffer; carried: StoredEvent[] } {
    const view = this.#endpoint.sensitiveFields ? SENSITIVE_VIEW : REDACTED_VIEW;
    if (this.#endpoint.format === 'discord') {
      const { message, count } = discordMessage(events.map(view));
      return { body: Buffer.from(JSON.stringify(message)), carried: events.slice(0, count) };
    }
    return { body: Buffer.from(JSON.stringify(view(events[0] as StoredEvent))), carried: events.slice(0, 1) };
  }

  /** Discord's `retry_after` (or any receiver's Retry-After) on 429 and 503; else the backoff. */
  #retryWait(result: SendResult, attempt: number): number {
    let requested: number | undefined;
    if (result.status === 429) requested = discordRetryAfterMs(result.body) ?? result.retryAfterMs;
    else if (result.status === 503) requested = result.retryAfterMs;
    return (
      honouredWait(this.#deps.policy, requested) ??
      backoffDelay(this.#deps.policy, attempt, this.#deps.random)
    );
  }

  /**
   * The backoff. Not at all once stopped: a stop that lands while the failed attempt is being
   * recorded finds no sleep to cancel yet, and must not wait the backoff out (up to an hour).
   */
  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#cancelSleep = done;
    }).finally(() => {
      this.#cancelSleep = null;
    });
  }
}

/**
 * One signed POST of `body` to the endpoint, as every delivery makes it (and the admin API's
 * test message): the URL checked again, the signature headers, the endpoint's address rule.
 */
export function sendSigned(
  deps: Pick<WorkerDeps, 'sender' | 'policy' | 'userAgent' | 'ruleFor'>,
  endpoint: WebhookEndpoint,
  messageId: string,
  body: Buffer,
  at: Date,
): Promise<SendResult> {
  const checked = checkWebhookUrl(endpoint.url, { allowHttp: endpoint.allowHttp });
  if ('error' in checked) {
    return Promise.resolve({
      ok: false,
      status: null,
      latencyMs: 0,
      failure: 'invalid_url',
      detail: checked.error,
      retryAfterMs: undefined,
      body: '',
    });
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': deps.userAgent,
    ...signatureHeaders(signingSecrets(endpoint, at), messageId, Math.floor(at.getTime() / 1000), body),
  };
  return deps.sender.send({
    url: checked.url,
    rule: deps.ruleFor(endpoint),
    byKey: endpoint.createdBy !== null,
    headers,
    body,
    timeoutMs: deps.policy.timeoutMs,
    maxResponseBytes: deps.policy.maxResponseBytes,
  });
}
