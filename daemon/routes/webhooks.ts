/**
 * /v1/webhooks (scope `webhooks:manage`): register, list, read and remove webhook endpoints and
 * read their recent delivery attempts. The same registry as `modgate webhooks` (webhooks.json);
 * what the API cannot do is the operator's: `--allow-http` to a non-loopback host, any address
 * that is not public (address-policy.ts), and re-enabling a disabled endpoint. A key sees,
 * removes and rotates the secret of only the endpoints it registered (another key's is 404, as
 * if it did not exist), and registers at most MAX_ENDPOINTS_PER_KEY. A secret is in the answer
 * of the create or rotate-secret call only. None of these calls reach the game server. Decisions are in docs/events.md, "Webhooks".
 */
import * as z from 'zod';
import { MAX_ENDPOINTS_PER_KEY } from '../events/webhooks/endpoint-file.ts';
import { RECENT_ATTEMPTS } from '../events/webhooks/outbox-state.ts';
import { endpointView } from '../events/webhooks/views.ts';
import type { WebhookService } from '../events/webhooks/webhook-service.ts';
import { ApiError } from '../http/api-error.ts';
import { collection } from './collection.ts';
import { defineRoute, type RouteServices } from '../http/define-route.ts';
import {
  CreateBody,
  CreatedWebhookSchema,
  deliveriesPage,
  DeliveriesPage,
  DeliveriesQuery,
  idParams,
  registerEndpoint,
  rotateAndShow,
  RotatedWebhookSchema,
  RotateSecretBody,
  WebhookEndpointSchema,
} from './webhooks-common.ts';

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

export const createWebhook = defineRoute({
  ...common,
  method: 'POST',
  path: '/v1/webhooks',
  operationId: 'createWebhook',
  summary: 'Register a webhook endpoint; the answer carries its signing secret, once',
  body: CreateBody,
  response: { status: 201, schema: CreatedWebhookSchema },
  errors: ['conflict', 'idempotency_conflict'],
  handler: async ({ body, key, services }) =>
    registerEndpoint(registry(services), body, {
      createdBy: key.id,
      allowHttp: false,
      sensitiveFields: key.scopes.includes('players:read_sensitive'),
    }),
});

export const listWebhooks = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/webhooks',
  operationId: 'listWebhooks',
  summary: `The endpoints this key registered, with their status (at most ${MAX_ENDPOINTS_PER_KEY}, one page)`,
  response: { status: 200, schema: () => collection(WebhookEndpointSchema(), false, 'WebhookEndpointPage') },
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
  response: { status: 204, schema: () => z.null() },
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
  query: DeliveriesQuery,
  response: { status: 200, schema: DeliveriesPage },
  errors: ['not_found'],
  handler: async ({ params, query, key, services }) => {
    const webhooks = registry(services);
    found(webhooks, params.id, key.id);
    return deliveriesPage(webhooks, params.id, query.limit);
  },
});

export const rotateWebhookSecret = defineRoute({
  ...common,
  method: 'POST',
  path: '/v1/webhooks/{id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  summary:
    'Give an endpoint a new signing secret, shown once; the old one keeps signing beside it for the overlap',
  params: idParams,
  body: RotateSecretBody,
  response: { status: 200, schema: RotatedWebhookSchema },
  errors: ['not_found', 'idempotency_conflict'],
  handler: async ({ params, body, key, services }) => {
    const webhooks = registry(services);
    found(webhooks, params.id, key.id);
    return rotateAndShow(webhooks, params.id, body.overlap);
  },
});

export const WEBHOOK_ROUTES = [
  createWebhook,
  listWebhooks,
  getWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  rotateWebhookSecret,
];
