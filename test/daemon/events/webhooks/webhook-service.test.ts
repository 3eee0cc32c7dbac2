import { afterEach, describe, expect, it } from 'vitest';
import { createHook } from 'node:async_hooks';
import { readEndpoints } from '../../../../daemon/events/webhooks/endpoint-file.ts';
import { eventually } from '../../../../harness/stack.ts';
import { startReceiver, type Receiver } from '../../../support/webhook-receiver.ts';
import { discordViolations } from '../../../support/discord-shape.ts';
import { startHarness, type Harness } from './service-support.ts';

let harness: Harness;
let receivers: Receiver[] = [];

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

afterEach(async () => {
  await harness?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

describe('webhook delivery', () => {
  it('delivers the stored event signed so that the standardwebhooks library verifies it', async () => {
    harness = await startHarness();
    const hook = await receiver();
    const { secret } = await harness.add(hook.url);
    hook.secret = secret;
    const id = await harness.append('player.banned', { player: { platform_id: '76561198000000001' } });
    await eventually(() => hook.processed.length === 1);
    const [request] = hook.requests;
    expect(request?.verified).toBe(true);
    expect(request?.messageId).toBe(`msg_srv_test_${id}`);
    expect(request?.json).toMatchObject({
      id,
      type: 'player.banned',
      data: { player: { platform_id: '76561198000000001' } },
    });
    expect(request?.headers['content-type']).toBe('application/json');
  });

  it('delivers only the subscribed types, in log order, one at a time', async () => {
    harness = await startHarness();
    const hook = await receiver();
    const { secret } = await harness.add(hook.url, '--events', 'player.banned,player.muted');
    hook.secret = secret;
    const ids: number[] = [];
    for (const type of [
      'player.joined',
      'player.banned',
      'player.left',
      'player.muted',
      'player.banned',
    ] as const) {
      ids.push(await harness.append(type));
    }
    await eventually(() => hook.processed.length === 3);
    expect(hook.requests.map((r) => (r.json as { id: number }).id)).toEqual([ids[1], ids[3], ids[4]]);
  });

  it('retries a failing message with the same webhook-id until the receiver takes it', async () => {
    harness = await startHarness();
    const hook = await receiver((request) => ({ status: request.index < 3 ? 500 : 200 }));
    const { id: webhookId, secret } = await harness.add(hook.url);
    hook.secret = secret;
    const first = await harness.append('player.muted');
    const second = await harness.append('player.unmuted');
    // The receiver has the request before the worker has its answer: wait for both.
    await eventually(
      () => hook.processed.length === 2 && harness.service.outbox(webhookId).position === second,
    );
    expect(hook.requests.map((r) => r.messageId)).toEqual([
      ...Array(4).fill(`msg_srv_test_${first}`),
      `msg_srv_test_${second}`,
    ]);
    const outbox = harness.service.outbox(webhookId);
    expect(outbox.position).toBe(second);
    expect(outbox.recent.map((r) => [r.outcome, r.attempt, r.status])).toEqual([
      ['failed', 1, 500],
      ['failed', 2, 500],
      ['failed', 3, 500],
      ['delivered', 4, 200],
      ['delivered', 1, 200],
    ]);
  });

  it('disables an endpoint whose message keeps failing past the retry window, and says so', async () => {
    // The service's clock, not the machine's speed, decides when the window is over.
    let ahead = 0;
    harness = await startHarness(
      { baseDelayMs: 5, maxDelayMs: 20, retryWindowMs: 60_000, timeoutMs: 2_000 },
      { now: () => new Date(Date.now() + ahead) },
    );
    const hook = await receiver(() => ({ status: 503 }));
    const { id } = await harness.add(hook.url);
    await harness.append('player.banned');
    await eventually(() => hook.requests.length >= 3);
    ahead = 60_000;
    await eventually(async () => (await readEndpoints(harness.data.dir))[0]?.disabledAt !== null);
    const [endpoint] = await readEndpoints(harness.data.dir);
    expect(endpoint?.disabledReason).toMatch(
      new RegExp(`^one message failed ${hook.requests.length} times over \\d+\\.\\d s$`),
    );
    expect(hook.requests.length).toBeGreaterThanOrEqual(3);
    expect(harness.logLines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'webhook endpoint disabled',
        fields: expect.objectContaining({ webhook_id: id }),
      }),
    );
    const attempts = hook.requests.length;
    await harness.append('player.unbanned');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.requests.length).toBe(attempts);
  });

  it('disables an endpoint at once when the receiver answers 410 Gone', async () => {
    harness = await startHarness();
    const hook = await receiver(() => ({ status: 410 }));
    await harness.add(hook.url);
    await harness.append('player.banned');
    await eventually(async () => (await readEndpoints(harness.data.dir))[0]?.disabledAt !== null);
    expect((await readEndpoints(harness.data.dir))[0]?.disabledReason).toBe('the receiver answered 410 Gone');
    expect(hook.requests).toHaveLength(1);
  });

  it('resumes a re-enabled endpoint with the message it stopped on', async () => {
    harness = await startHarness({ baseDelayMs: 5, maxDelayMs: 20, retryWindowMs: 100, timeoutMs: 2_000 });
    let healthy = false;
    const hook = await receiver(() => ({ status: healthy ? 200 : 500 }));
    const { id, secret } = await harness.add(hook.url);
    hook.secret = secret;
    const event = await harness.append('player.banned');
    await eventually(async () => (await readEndpoints(harness.data.dir))[0]?.disabledAt !== null);
    healthy = true;
    expect((await harness.data.cli('webhooks', 'enable', id, '--data-dir', harness.data.dir)).code).toBe(0);
    await harness.service.reload(); // no daemon here: the service reads the file when told to
    await eventually(() => hook.processed.length === 1);
    expect(hook.processed[0]?.messageId).toBe(`msg_srv_test_${event}`);
  });

  it('keeps the position and the webhook-id across a restart in the middle of a retry', async () => {
    // The first retry goes out at once, the second waits its full minute: the restart comes
    // while the worker sleeps between attempts, never while one is on the wire.
    let draws = 0;
    harness = await startHarness(
      { baseDelayMs: 30_000, maxDelayMs: 60_000, retryWindowMs: 600_000, timeoutMs: 2_000 },
      { random: () => (draws++ === 0 ? 0 : 1) },
    );
    const hook = await receiver((request) => ({ status: request.index < 2 ? 500 : 200 }));
    const { id, secret } = await harness.add(hook.url);
    hook.secret = secret;
    const event = await harness.append('player.banned');
    await eventually(() => harness.service.outbox(id).run?.attempts === 2);
    await harness.restart();
    await eventually(() => harness.service.outbox(id).position === event);
    expect(hook.requests.map((r) => r.messageId)).toEqual(Array(3).fill(`msg_srv_test_${event}`));
    expect(hook.processed).toHaveLength(1);
    expect(harness.service.outbox(id).recent.map((r) => [r.outcome, r.attempt, r.status])).toEqual([
      ['failed', 1, 500],
      ['failed', 2, 500],
      ['delivered', 3, 200],
    ]);
  });

  it('sends an attempt cut off by a restart again with the same webhook-id, and does not count it', async () => {
    harness = await startHarness();
    const answers: Receiver['answer'][] = [() => ({ status: 500 }), () => 'hang'];
    const hook = await receiver((request) => answers[request.index]?.(request) ?? { status: 200 });
    const { id, secret } = await harness.add(hook.url);
    hook.secret = secret;
    const event = await harness.append('player.banned');
    // The second attempt is on the wire, unanswered, when the service stops.
    await eventually(() => hook.requests.length === 2);
    await harness.restart();
    await eventually(() => harness.service.outbox(id).position === event);
    expect(hook.requests.map((r) => r.messageId)).toEqual(Array(3).fill(`msg_srv_test_${event}`));
    expect(harness.service.outbox(id).recent.map((r) => [r.outcome, r.attempt, r.status])).toEqual([
      ['failed', 1, 500],
      ['delivered', 2, 200],
    ]);
  });

  it('stops at once when closed while it records a failed attempt, not after the backoff', async () => {
    let closing: Promise<void> | undefined;
    harness = await startHarness(
      { baseDelayMs: 600_000, maxDelayMs: 600_000, retryWindowMs: 3_600_000, timeoutMs: 2_000 },
      {
        random: () => 1,
        // Counted before the journal line is written: the worker is not asleep yet.
        metrics: {
          webhookDelivery: (outcome) => {
            if (outcome === 'failed') closing ??= harness.service.close();
          },
        },
      },
    );
    const hook = await receiver(() => ({ status: 500 }));
    const { id } = await harness.add(hook.url);
    await harness.append('player.banned');
    await eventually(() => closing !== undefined);
    await closing;
    expect(hook.requests).toHaveLength(1);
    expect(harness.service.outbox(id).run?.attempts).toBe(1);
    expect(harness.logLines).toContainEqual(
      expect.objectContaining({
        msg: 'webhook delivery failed',
        fields: expect.objectContaining({ retry_in_ms: 600_000 }),
      }),
    );
  });

  it('never follows a redirect: the 3xx is a failed attempt and its target is never called', async () => {
    harness = await startHarness({
      baseDelayMs: 1_000,
      maxDelayMs: 1_000,
      retryWindowMs: 60_000,
      timeoutMs: 2_000,
    });
    const target = await receiver();
    const hook = await receiver(() => ({ status: 307, headers: { location: target.url } }));
    const { id } = await harness.add(hook.url);
    await harness.append('player.banned');
    await eventually(() => harness.service.outbox(id).recent.length >= 1);
    const [attempt] = harness.service.outbox(id).recent;
    expect(attempt).toMatchObject({ outcome: 'failed', status: 307 });
    // A fixed class: never the Location header, which would tell a key where the receiver points.
    expect(attempt?.error).toBe('redirect');
    expect(target.requests).toHaveLength(0);
  });

  it('gives up on an attempt that gets no answer within the timeout', async () => {
    harness = await startHarness({
      baseDelayMs: 1_000,
      maxDelayMs: 1_000,
      retryWindowMs: 60_000,
      timeoutMs: 100,
    });
    const hook = await receiver(() => 'hang');
    const { id } = await harness.add(hook.url);
    await harness.append('player.banned');
    await eventually(() => harness.service.outbox(id).recent.length >= 1);
    expect(harness.service.outbox(id).recent[0]).toMatchObject({
      outcome: 'failed',
      status: null,
      error: 'timeout',
    });
  });

  it('reads a huge answer only up to its cap and still counts the 2xx as delivered', async () => {
    harness = await startHarness({
      ...{ baseDelayMs: 5, maxDelayMs: 40, retryWindowMs: 60_000, timeoutMs: 5_000 },
      maxResponseBytes: 1_024,
    });
    const hook = await receiver(() => ({ status: 200, body: 'x'.repeat(8 * 1024 * 1024) }));
    const { id } = await harness.add(hook.url);
    await harness.append('player.banned');
    await eventually(() => harness.service.outbox(id).recent.length >= 1);
    expect(harness.service.outbox(id).recent[0]?.outcome).toBe('delivered');
  });

  it('stops delivering to an endpoint removed with the CLI', async () => {
    harness = await startHarness();
    const hook = await receiver();
    const { id } = await harness.add(hook.url);
    await harness.append('player.banned');
    await eventually(() => hook.requests.length === 1);
    expect((await harness.data.cli('webhooks', 'remove', id, '--data-dir', harness.data.dir)).code).toBe(0);
    await harness.service.reload();
    await eventually(() => harness.service.list().length === 0);
    await harness.append('player.banned');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.requests).toHaveLength(1);
  });
});

describe('Discord delivery', () => {
  it('posts messages Discord accepts and honours retry_after on a 429', async () => {
    harness = await startHarness({
      baseDelayMs: 5_000,
      maxDelayMs: 60_000,
      retryWindowMs: 600_000,
      timeoutMs: 2_000,
    });
    const hook = await receiver((request) =>
      request.index === 0
        ? {
            status: 429,
            headers: { 'content-type': 'application/json', 'retry-after': '1' },
            body: '{"message":"You are being rate limited.","retry_after":0.15,"global":false}',
          }
        : { status: discordViolations(request.json).length === 0 ? 204 : 400 },
    );
    const { id } = await harness.add(
      hook.url,
      '--format',
      'discord',
      '--events',
      'player.banned,player.muted',
    );
    await harness.append('player.banned', {
      player: { platform_id: '76561198000000001', social_id: null },
      reason: 'cheating',
    });
    // The receiver has the second request before the worker has its answer: wait for both.
    await eventually(() => hook.requests.length === 2 && harness.service.outbox(id).recent.length === 2);
    const recent = harness.service.outbox(id).recent;
    expect(recent.map((r) => [r.outcome, r.status, r.retry_in_ms])).toEqual([
      ['failed', 429, 150],
      ['delivered', 204, null],
    ]);
    expect(discordViolations(hook.requests[1]?.json)).toEqual([]);
    expect(hook.requests[1]?.json).toMatchObject({ embeds: [{ title: 'Player banned' }] });
  });
});

describe('webhooks.json changes', () => {
  it('reach the service on its next reload when another process writes the file', async () => {
    harness = await startHarness();
    const hook = await receiver();
    const { id } = await harness.data.addWebhook(hook.url);
    await harness.service.reload();
    expect(harness.service.get(id)).toBeDefined();
  });

  it('cost an idle service no timer and no file system call', async () => {
    harness = await startHarness();
    const hook = await receiver();
    await harness.add(hook.url);
    await eventually(() => harness.service.list().length === 1);
    const armed: string[] = [];
    const spy = createHook({
      init: (_id, type) => {
        const stack = new Error().stack ?? '';
        // This service's own (daemon/events/webhooks/): the suite shares workers between files
        // (vitest.config.ts, isolate: false), and a daemon another file left running arms its own.
        if (/^(Timeout|FSREQ|STATWATCHER)/.test(type) && stack.includes('/daemon/events/webhooks/'))
          armed.push(type);
      },
    });
    // Four times the 250 ms the file was once polled at; the pause's own timer is armed first.
    const pause = new Promise((resolve) => setTimeout(resolve, 1_000));
    spy.enable();
    await pause;
    spy.disable();
    expect(armed).toEqual([]);
  });
});
