/**
 * A webhook endpoint's delivery loop that throws (here: its read of the event log fails once, as
 * on a failing disk) is restarted with a backoff instead of dying for good: the event is still
 * delivered, the restart is counted and logged, and /healthz's worker_faults (what `modgate
 * doctor` reads) names the endpoint.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FileEventLog } from '../../../../daemon/events/event-log.ts';
import type { EventLog } from '../../../../daemon/events/types.ts';
import { WebhookService } from '../../../../daemon/events/webhooks/webhook-service.ts';
import type { Logger } from '../../../../daemon/log/log.ts';
import { WorkerHealth } from '../../../../daemon/worker-health.ts';
import { makeDataDir, type TestDataDir } from '../../../../harness/data-dir.ts';
import { commandData } from '../../../support/game-events.ts';
import { eventually } from '../../../../harness/stack.ts';
import { startReceiver, type Receiver } from '../../../support/webhook-receiver.ts';
import { FAST_POLICY } from './service-support.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The log, except that the next read throws once armed. */
function flaky(eventLog: FileEventLog): EventLog & { arm(): void } {
  let armed = false;
  return {
    lastId: () => eventLog.lastId(),
    subscribe: (listener) => eventLog.subscribe(listener),
    readAfter: (after, limit) => {
      if (armed) {
        armed = false;
        throw new Error('EIO: i/o error, read');
      }
      return eventLog.readAfter(after, limit);
    },
    arm: () => void (armed = true),
  };
}

describe('a webhook delivery loop that fails', () => {
  it('is restarted after a backoff, counted, shown in worker faults, and still delivers', async () => {
    const data: TestDataDir = await makeDataDir();
    cleanups.push(() => data.remove());
    const eventLog = await FileEventLog.open(data.dir);
    cleanups.push(() => eventLog.close());
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    receiver.secret = (await data.addWebhook(receiver.url)).secret;
    const errors: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (msg) => void errors.push(msg),
    };
    const restarts: string[] = [];
    const workers = new WorkerHealth();
    const source = flaky(eventLog);
    const service = await WebhookService.start({
      dataDir: data.dir,
      eventLog: source,
      serverId: 'srv_test',
      logger,
      policy: FAST_POLICY,
      workerHealth: workers,
      metrics: { webhookDelivery: () => {}, workerRestarted: (worker) => void restarts.push(worker) },
    });
    cleanups.push(() => service.close());
    await eventually(() => service.list().length === 1);
    source.arm();
    await eventLog.append({ type: 'command.executed', data: commandData('#Say restarted') });
    await eventually(() => restarts.length === 1);
    expect(errors).toContain('background worker failed; restarting it after a backoff');
    expect(workers.faults).toEqual([
      expect.stringMatching(/^webhook wh_\w+: restarted 1 times, last .*: EIO: i\/o error, read$/),
    ]);
    await eventually(() => receiver.processed.length === 1);
    expect((receiver.processed[0]?.json as { data: { command: string } }).data.command).toBe(
      '#Say restarted',
    );
  });
});
