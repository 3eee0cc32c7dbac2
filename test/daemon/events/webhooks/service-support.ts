/**
 * A webhook service over a real data dir (set up through the CLI), a real event log and real
 * receivers on loopback sockets, with retry timing shrunk to milliseconds.
 */
import { FileEventLog } from '../../../../daemon/events/event-log.ts';
import type { EventType } from '../../../../daemon/events/types.ts';
import type { RetryPolicy } from '../../../../daemon/events/webhooks/retry-policy.ts';
import {
  WebhookService,
  type WebhookServiceOptions,
} from '../../../../daemon/events/webhooks/webhook-service.ts';
import { type Logger } from '../../../../daemon/log/log.ts';
import { makeDataDir, type TestDataDir } from '../../../../harness/data-dir.ts';

export const FAST_POLICY: Partial<RetryPolicy> = {
  baseDelayMs: 5,
  maxDelayMs: 40,
  retryWindowMs: 60_000,
  timeoutMs: 2_000,
};

export interface Harness {
  data: TestDataDir;
  eventLog: FileEventLog;
  service: WebhookService;
  logLines: { level: string; msg: string; fields: Record<string, unknown> }[];
  /** `webhooks add --json` with the given flags; returns the id and secret. */
  add(url: string, ...flags: string[]): Promise<{ id: string; secret: string }>;
  append(type: EventType, data?: Record<string, unknown>): Promise<number>;
  /** Closes the service and starts a new one on the same data dir and log. */
  restart(policy?: Partial<RetryPolicy>): Promise<void>;
  close(): Promise<void>;
}

/**
 * The service's clock and jitter (for tests that must not depend on the machine's speed) and
 * its metrics (which see each attempt's outcome the moment the worker has it).
 */
export type HarnessOptions = Pick<WebhookServiceOptions, 'now' | 'random' | 'metrics'>;

export async function startHarness(
  policy: Partial<RetryPolicy> = FAST_POLICY,
  extra: HarnessOptions = {},
): Promise<Harness> {
  const data = await makeDataDir();
  const eventLog = await FileEventLog.open(data.dir);
  const logLines: Harness['logLines'] = [];
  const logger: Logger = {
    debug: (msg, fields = {}) => logLines.push({ level: 'debug', msg, fields }),
    info: (msg, fields = {}) => logLines.push({ level: 'info', msg, fields }),
    warn: (msg, fields = {}) => logLines.push({ level: 'warn', msg, fields }),
    error: (msg, fields = {}) => logLines.push({ level: 'error', msg, fields }),
  };
  const start = (p: Partial<RetryPolicy>) =>
    WebhookService.start({
      dataDir: data.dir,
      eventLog,
      serverId: 'srv_test',
      logger,
      policy: p,
      ...extra,
    });
  const harness: Harness = {
    data,
    eventLog,
    service: await start(policy),
    logLines,
    add: async (url, ...flags) => {
      const added = await data.addWebhook(url, ...flags);
      await harness.service.reload();
      return added;
    },
    append: async (type, payload = { player: { platform_id: '76561198000000001', social_id: null } }) => {
      const event = await eventLog.append({ type, data: payload });
      if (event === null) throw new Error('append dropped the event');
      return event.id;
    },
    restart: async (p = policy) => {
      await harness.service.close();
      harness.service = await start(p);
    },
    close: async () => {
      await harness.service.close();
      await eventLog.close();
      await data.remove();
    },
  };
  return harness;
}
