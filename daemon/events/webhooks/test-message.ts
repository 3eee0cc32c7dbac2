/**
 * The test message the admin API's `POST /admin/v1/webhooks/{id}/test` sends at once: signed and
 * aimed exactly like a delivery (endpoint-worker.ts `sendSigned`), so a receiver that accepts it
 * accepts real events, but carrying no event: `{"id": 0, "type": "webhook.test", ...}` in the
 * standard format (no event has id 0), one plain embed in Discord's. It is not journaled: it
 * moves no endpoint's position and is not one of its deliveries (docs/events.md).
 */
import { randomBytes } from 'node:crypto';
import type { WebhookEndpoint } from './endpoint-file.ts';
import type { DeliveryFailure } from './delivery-failure.ts';
import type { SendResult } from './sender.ts';

export const TEST_EVENT_TYPE = 'webhook.test';

/** A fresh webhook-id per test, so a deduplicating receiver processes each one. */
export function testMessageId(serverId: string): string {
  return `msg_${serverId}_test_${randomBytes(8).toString('hex')}`;
}

export function testMessageBody(endpoint: WebhookEndpoint, at: Date): Buffer {
  const text = `A test message from modgate for webhook ${endpoint.id}; no event happened.`;
  if (endpoint.format === 'discord') {
    const embed = {
      title: 'Webhook test',
      description: text,
      color: 0x95a5a6,
      timestamp: at.toISOString(),
      fields: [],
      footer: { text: `${endpoint.id} · ${TEST_EVENT_TYPE}` },
    };
    return Buffer.from(JSON.stringify({ content: null, embeds: [embed], allowed_mentions: { parse: [] } }));
  }
  const event = {
    id: 0,
    type: TEST_EVENT_TYPE,
    at: at.toISOString(),
    data: { webhook_id: endpoint.id, message: text },
  };
  return Buffer.from(JSON.stringify(event));
}

export interface TestOutcome {
  readonly outcome: 'delivered' | 'failed';
  readonly message_id: string;
  readonly at: string;
  readonly status: number | null;
  readonly latency_ms: number;
  /** A fixed class (delivery-failure.ts), never the receiver's words; null when delivered. */
  readonly error: DeliveryFailure | null;
}

export function testOutcome(result: SendResult, messageId: string, at: Date): TestOutcome {
  return {
    outcome: result.ok ? 'delivered' : 'failed',
    message_id: messageId,
    at: at.toISOString(),
    status: result.status,
    latency_ms: result.latencyMs,
    error: result.ok ? null : result.failure,
  };
}
