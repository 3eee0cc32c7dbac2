/**
 * /v1/webhooks (scope `webhooks:manage`): register, list, read and remove webhook endpoints and
 * read their recent delivery attempts. The same registry as `modgate webhooks` (webhooks.json);
 * what the API cannot do is the operator's: `--allow-http` to a non-loopback host, any address
 * that is not public (address-policy.ts), and re-enabling a disabled endpoint. A key sees and
 * removes only the endpoints it registered (another key's is 404, as if it did not exist), and
 * registers at most MAX_ENDPOINTS_PER_KEY. The secret is in the 201 answer of the create call
 * only. None of these calls reach the game server. Decisions are in docs/events.md, "Webhooks".
 */
import * as z from 'zod';
import {
  ALL_EVENTS,
  MAX_ENDPOINTS_PER_KEY,
  WEBHOOK_FORMATS,
  WEBHOOK_ID_PATTERN,
  type EventSelector,
} from '../events/webhooks/endpoint-file.ts';
import { DELIVERY_FAILURES } from '../events/webhooks/delivery-failure.ts';
import { RECENT_ATTEMPTS } from '../events/webhooks/outbox-state.ts';
import { checkWebhookUrl, WEBHOOK_URL_MAX_LENGTH } from '../events/webhooks/url-policy.ts';
import { createdView, endpointView, recentAttempts } from '../events/webhooks/views.ts';
import type { WebhookService } from '../events/webhooks/webhook-service.ts';
import { RegistryFullError } from '../events/webhooks/webhook-service.ts';
import { EVENT_TYPES } from '../events/types.ts';
import { ApiError } from '../http/api-error.ts';
import { collection } from './collection.ts';
import { defineRoute, type RouteServices } from '../http/define-route.ts';
import { limitParam } from './params.ts';

const eventSelector = z.enum([ALL_EVENTS, ...EVENT_TYPES]);

const endpointShape = {
  id: z.string().describe('wh_ and 16 characters a-z0-9'),
  url: z.string(),
  events: z.array(eventSelector).describe('Subscribed event types; `*` is every type'),
  format: z.enum(WEBHOOK_FORMATS),
  description: z.string().nullable(),
  status: z
    .enum(['active', 'retrying', 'disabled'])
    .describe('retrying: the oldest undelivered message has failed at least once'),
  disabled_at: z.string().nullable(),
  disabled_reason: z.string().nullable(),
  allow_http: z.boolean(),
  sensitive_fields: z
    .boolean()
    .describe('Payloads keep fields guarded by players:read_sensitive (the creating key had it)'),
  created_by: z.string().nullable().describe('The API key id that created it; null for the CLI'),
  created_at: z.string(),
  last_delivered_event_id: z.number().int().describe('The endpoint position in the event log'),
  failing_attempts: z.number().int(),
  last_attempt_at: z.string().nullable(),
};

const WebhookEndpointSchema = z.object(endpointShape).meta({ id: 'WebhookEndpoint' });
const CreatedWebhookSchema = z
  .object({ ...endpointShape, secret: z.string().describe('whsec_…; shown only in this answer') })
  .meta({ id: 'WebhookEndpointCreated' });

const DeliveryAttemptSchema = z
  .object({
    at: z.string(),
    outcome: z.enum(['delivered', 'failed', 'skipped', 'gap']),
    message_id: z.string().nullable().describe('The webhook-id header sent'),
    first_event_id: z.number().int(),
    last_event_id: z.number().int(),
    attempt: z.number().int().nullable(),
    status: z.number().int().nullable().describe('HTTP status of the answer; null when none'),
    latency_ms: z.number().nullable(),
    error: z
      .enum(DELIVERY_FAILURES)
      .nullable()
      .describe("Why it failed, as a fixed class; never the receiver's own text. Null when delivered"),
    retry_in_ms: z.number().int().nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

const CreateBody = z
  .object({
    url: z
      .string()
      .max(WEBHOOK_URL_MAX_LENGTH)
      .describe('https to a public address; the name must resolve to public addresses only'),
    events: z.array(eventSelector).min(1).describe('Event types, or ["*"] for all'),
    format: z.enum(WEBHOOK_FORMATS).optional().describe('Default: standard'),
    description: z.string().max(200).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const checked = checkWebhookUrl(body.url, { allowHttp: false });
    if ('error' in checked) ctx.addIssue({ code: 'custom', path: ['url'], message: checked.error });
  })
  .meta({ id: 'WebhookCreateRequest' });

const idParams = z
  .object({ id: z.string().regex(WEBHOOK_ID_PATTERN, 'a webhook id: wh_ and 16 characters a-z0-9') })
  .strict();

const common = { tag: 'Webhooks', scope: 'webhooks:manage', cache: { kind: 'no-store' } } as const;

function registry(services: RouteServices): WebhookService {
  if (!services.webhooks) throw new Error('this pipeline was built without the webhook service');
  return services.webhooks;
}

/** The endpoint, if this key registered it; another key's is as absent as an unknown one. */
function found(webhooks: WebhookService, id: string, keyId: string) {
  const endpoint = webhooks.get(id);
  if (!endpoint || endpoint.createdBy !== keyId) throw new ApiError('not_found', `No webhook ${id}.`);
  return endpoint;
}

/** The address check, which needs a lookup: refused like any other invalid field. */
async function checkAddress(webhooks: WebhookService, url: URL, keyId: string): Promise<void> {
  const refused = await webhooks.checkTarget(url, keyId);
  if (refused === null) return;
  const message = `a webhook registered through the API must reach a public address: ${refused}`;
  throw new ApiError('validation_error', `Invalid body.url: ${message}`, {
    details: { errors: [{ in: 'body', path: 'url', message }] },
  });
}

export const createWebhook = defineRoute({
  ...common,
  method: 'POST',
  path: '/v1/webhooks',
  operationId: 'createWebhook',
  summary: 'Register a webhook endpoint; the answer carries its signing secret, once',
  body: CreateBody,
  response: { status: 201, schema: CreatedWebhookSchema },
  errors: ['conflict', 'idempotency_conflict'],
  handler: async ({ body, key, services }) => {
    const events: EventSelector[] = body.events.includes(ALL_EVENTS)
      ? [ALL_EVENTS]
      : EVENT_TYPES.filter((type) => body.events.includes(type));
    const webhooks = registry(services);
    const url = new URL(body.url);
    await checkAddress(webhooks, url, key.id);
    try {
      const endpoint = await webhooks.create({
        url: url.href,
        events,
        format: body.format ?? 'standard',
        allowHttp: false,
        sensitiveFields: key.scopes.includes('players:read_sensitive'),
        description: body.description?.trim() || null,
        createdBy: key.id,
      });
      return createdView(endpoint);
    } catch (error) {
      if (error instanceof RegistryFullError) throw new ApiError('conflict', error.message);
      throw error;
    }
  },
});

export const listWebhooks = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/webhooks',
  operationId: 'listWebhooks',
  summary: `The endpoints this key registered, with their status (at most ${MAX_ENDPOINTS_PER_KEY}, one page)`,
  response: { status: 200, schema: collection(WebhookEndpointSchema, false, 'WebhookEndpointPage') },
  errors: [],
  handler: async ({ key, services }) => {
    const webhooks = registry(services);
    const data = webhooks
      .ownedBy(key.id)
      .map((endpoint) => endpointView(endpoint, webhooks.outbox(endpoint.id)));
    return { data, has_more: false, next_cursor: null };
  },
});

export const getWebhook = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/webhooks/{id}',
  operationId: 'getWebhook',
  summary: 'One endpoint and its status (never its secret)',
  params: idParams,
  response: { status: 200, schema: WebhookEndpointSchema },
  errors: ['not_found'],
  handler: async ({ params, key, services }) => {
    const webhooks = registry(services);
    return endpointView(found(webhooks, params.id, key.id), webhooks.outbox(params.id));
  },
});

export const deleteWebhook = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/v1/webhooks/{id}',
  operationId: 'deleteWebhook',
  summary: 'Remove an endpoint; deliveries to it stop',
  params: idParams,
  response: { status: 204, schema: z.null() },
  errors: ['not_found'],
  handler: async ({ params, key, services }) => {
    const webhooks = registry(services);
    found(webhooks, params.id, key.id);
    if (!(await webhooks.remove(params.id))) throw new ApiError('not_found', `No webhook ${params.id}.`);
    return null;
  },
});

export const listWebhookDeliveries = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: `Recent delivery attempts, newest first (the last ${RECENT_ATTEMPTS} are kept)`,
  params: idParams,
  query: z.object({ limit: limitParam(1, RECENT_ATTEMPTS) }).strict(),
  response: {
    status: 200,
    schema: collection(DeliveryAttemptSchema, false, 'WebhookDeliveryAttemptPage'),
  },
  errors: ['not_found'],
  handler: async ({ params, query, key, services }) => {
    const webhooks = registry(services);
    found(webhooks, params.id, key.id);
    return {
      data: recentAttempts(webhooks.outbox(params.id), query.limit),
      has_more: false,
      next_cursor: null,
    };
  },
});

export const WEBHOOK_ROUTES = [createWebhook, listWebhooks, getWebhook, deleteWebhook, listWebhookDeliveries];
