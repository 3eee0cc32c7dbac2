/**
 * How an endpoint and its attempts are shown, the same way by the CLI's `--json`, the
 * /v1/webhooks routes and the admin API: snake_case, every field present, never the secret (that
 * is shown once, by the creating or rotating call, through createdView() or rotatedView()).
 */
import { shownFailure } from './delivery-failure.ts';
import type { WebhookEndpoint } from './endpoint-file.ts';
import type { EndpointOutbox, OutboxRecord } from './outbox-state.ts';

export type EndpointStatus = 'active' | 'retrying' | 'disabled';

export function endpointStatus(
  endpoint: WebhookEndpoint,
  outbox: EndpointOutbox | undefined,
): EndpointStatus {
  if (endpoint.disabledAt !== null) return 'disabled';
  return outbox?.run ? 'retrying' : 'active';
}

/** When the last secret rotated out stops signing; null when none still signs. */
function previousSecretUntil(endpoint: WebhookEndpoint, now: Date): string | null {
  const until = Math.max(0, ...endpoint.previousSecrets.map((previous) => previous.until.getTime()));
  return until > now.getTime() ? new Date(until).toISOString() : null;
}

export function endpointView(
  endpoint: WebhookEndpoint,
  outbox: EndpointOutbox | undefined,
  now: Date = new Date(),
) {
  const last = outbox?.recent.at(-1);
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    format: endpoint.format,
    description: endpoint.description,
    status: endpointStatus(endpoint, outbox),
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    disabled_reason: endpoint.disabledReason,
    allow_http: endpoint.allowHttp,
    sensitive_fields: endpoint.sensitiveFields,
    created_by: endpoint.createdBy,
    created_at: endpoint.createdAt.toISOString(),
    // Where its worker resumes (endpoint-worker.ts): a new endpoint is past the events logged
    // before it, whether or not a worker has run for it yet.
    last_delivered_event_id: Math.max(outbox?.position ?? 0, endpoint.startAfter),
    failing_attempts: outbox?.run?.attempts ?? 0,
    last_attempt_at: last?.at ?? null,
    previous_secret_until: previousSecretUntil(endpoint, now),
  };
}

export type EndpointView = ReturnType<typeof endpointView>;

/** The view plus the secret: only ever the answer to the call that created the endpoint. */
export function createdView(endpoint: WebhookEndpoint) {
  return { ...endpointView(endpoint, undefined), secret: endpoint.secret };
}

/** The view plus the new secret: only ever the answer to the call that rotated it. */
export function rotatedView(endpoint: WebhookEndpoint, outbox: EndpointOutbox | undefined, now: Date) {
  return { ...endpointView(endpoint, outbox, now), secret: endpoint.secret };
}

export function attemptView(record: OutboxRecord) {
  return {
    at: record.at,
    outcome: record.outcome,
    message_id: record.message_id,
    first_event_id: record.first_event,
    last_event_id: record.last_event,
    attempt: record.attempt,
    status: record.status,
    latency_ms: record.latency_ms,
    error: shownFailure(record.error, record.outcome),
    retry_in_ms: record.retry_in_ms,
  };
}

/** Newest first, at most `limit`. */
export function recentAttempts(outbox: EndpointOutbox | undefined, limit: number) {
  return [...(outbox?.recent ?? [])].reverse().slice(0, limit).map(attemptView);
}
