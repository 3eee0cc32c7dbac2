/**
 * /admin/v1/webhooks (docs/admin.md, "Webhooks"): the operator's view of every webhook endpoint,
 * the operator's own and every API key's, each with its owner. The same registry, validation and
 * views as /v1/webhooks and `modgate webhooks` (daemon/routes/webhooks-common.ts,
 * daemon/events/webhooks/): an endpoint the operator registers here may reach loopback and
 * `[webhooks] allow_networks` as one added with the CLI may, and a key's never can. Every change
 * acts in the running daemon before the answer (the webhook service reloads its workers), and
 * every write is in the audit log with its actor (the admin pipeline writes it).
 */
import * as z from 'zod';
import { RECENT_ATTEMPTS } from '../../events/webhooks/outbox-state.ts';
import { endpointView } from '../../events/webhooks/views.ts';
import type { WebhookEndpoint } from '../../events/webhooks/endpoint-file.ts';
import { DELIVERY_FAILURES } from '../../events/webhooks/delivery-failure.ts';
import type { WebhookService } from '../../events/webhooks/webhook-service.ts';
import { ApiError } from '../../http/api-error.ts';
import type { Snapshot } from '../../store/data-dir.ts';
import { collection } from '../../routes/collection.ts';
import {
  changeError,
  CreatedWebhookSchema,
  deliveriesPage,
  editEndpointOf,
  DeliveriesPage,
  DeliveriesQuery,
  endpointShape,
  idParams,
  OperatorCreateBody,
  OperatorEditBody,
  registerEndpoint,
  rotateAndShow,
  RotatedWebhookSchema,
  RotateSecretBody,
} from '../../routes/webhooks-common.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { adminNow, type AdminServices } from '../services.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

const TAG = 'Webhooks';

const Owner = lazySchema(() =>
  z
    .object({
      kind: z.enum(['operator', 'key']),
      key_id: z.string().nullable().describe('The API key that registered it; null for the operator'),
      key_name: z.string().nullable().describe('That key name, while the key is in keys.json'),
    })
    .meta({ id: 'AdminWebhookOwner' }),
);

/** An endpoint with its owner, as these routes answer it; the CLI checks answers against it (cli/admin-answers.ts). */
export const AdminWebhookSchema = lazySchema(() =>
  z.object({ ...endpointShape(), owner: Owner() }).meta({ id: 'AdminWebhookEndpoint' }),
);

const TestOutcomeSchema = lazySchema(() =>
  z
    .object({
      outcome: z.enum(['delivered', 'failed']),
      message_id: z.string().describe('The webhook-id sent: msg_<server_id>_test_<random>'),
      at: z.string(),
      status: z.number().int().nullable().describe('HTTP status of the answer; null when none'),
      latency_ms: z.number(),
      error: z
        .enum(DELIVERY_FAILURES)
        .nullable()
        .describe('Why it failed, as a fixed class; null when delivered'),
    })
    .meta({ id: 'AdminWebhookTestOutcome' }),
);

function ownerOf(endpoint: WebhookEndpoint, snapshot: Snapshot) {
  if (endpoint.createdBy === null) return { kind: 'operator' as const, key_id: null, key_name: null };
  const key = snapshot.keysById.get(endpoint.createdBy);
  return { kind: 'key' as const, key_id: endpoint.createdBy, key_name: key?.name ?? null };
}

function adminView(webhooks: WebhookService, endpoint: WebhookEndpoint, snapshot: Snapshot) {
  return { ...endpointView(endpoint, webhooks.outbox(endpoint.id)), owner: ownerOf(endpoint, snapshot) };
}

/** Any registered endpoint; 404 when there is none with this id. */
function found(webhooks: WebhookService, id: string): WebhookEndpoint {
  const endpoint = webhooks.get(id);
  if (!endpoint) throw new ApiError('not_found', `No webhook ${id}.`);
  return endpoint;
}

/** Enables or disables an endpoint (the two routes differ only in which) and answers with it. */
async function switched(admin: AdminServices, id: string, change: 'enable' | 'disable') {
  try {
    await admin.webhooks[change](id);
  } catch (error) {
    throw changeError(error);
  }
  return adminView(admin.webhooks, found(admin.webhooks, id), admin.snapshot());
}

export const webhookRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/webhooks',
    operationId: 'listAdminWebhooks',
    summary: "Every endpoint, the operator's and every key's, with its owner (at most 50, one page)",
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    response: { status: 200, schema: () => collection(AdminWebhookSchema(), false, 'AdminWebhookPage') },
    errors: [],
    handler: async ({ admin }) => {
      const snapshot = admin.snapshot();
      const data = admin.webhooks.list().map((endpoint) => adminView(admin.webhooks, endpoint, snapshot));
      return { data, has_more: false, next_cursor: null };
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/webhooks',
    operationId: 'createAdminWebhook',
    summary: "Register an operator's endpoint; the answer carries its signing secret, once",
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    body: OperatorCreateBody,
    response: { status: 201, schema: CreatedWebhookSchema },
    errors: ['conflict', 'idempotency_conflict'],
    handler: async ({ body, admin }) =>
      registerEndpoint(admin.webhooks, body, {
        createdBy: null,
        allowHttp: body.allow_http === true,
        sensitiveFields: true,
      }),
  }),
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/webhooks/{id}',
    operationId: 'getAdminWebhook',
    summary: 'One endpoint, its status and owner (never its secret)',
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    response: { status: 200, schema: AdminWebhookSchema },
    errors: ['not_found'],
    handler: async ({ params, admin }) =>
      adminView(admin.webhooks, found(admin.webhooks, params.id), admin.snapshot()),
  }),
  defineAdminRoute({
    method: 'PATCH',
    path: '/admin/v1/webhooks/{id}',
    operationId: 'updateAdminWebhook',
    summary:
      "Change an endpoint's events or description; it receives the new selection from its next message",
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    body: OperatorEditBody,
    response: { status: 200, schema: AdminWebhookSchema },
    errors: ['validation_error', 'not_found'],
    handler: async ({ params, body, admin }) =>
      adminView(admin.webhooks, await editEndpointOf(admin.webhooks, params.id, body), admin.snapshot()),
  }),
  defineAdminRoute({
    method: 'DELETE',
    path: '/admin/v1/webhooks/{id}',
    operationId: 'deleteAdminWebhook',
    summary: 'Remove any endpoint; deliveries to it stop at once',
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    response: { status: 204 },
    errors: ['not_found'],
    handler: async ({ params, admin }) => {
      if (!(await admin.webhooks.remove(params.id)))
        throw new ApiError('not_found', `No webhook ${params.id}.`);
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/webhooks/{id}/enable',
    operationId: 'enableAdminWebhook',
    summary:
      'Re-enable a disabled endpoint; it resumes with the message it stopped on (409 when its key no longer works)',
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    response: { status: 200, schema: AdminWebhookSchema },
    errors: ['not_found', 'conflict', 'idempotency_conflict'],
    handler: ({ params, admin }) => switched(admin, params.id, 'enable'),
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/webhooks/{id}/disable',
    operationId: 'disableAdminWebhook',
    summary:
      "Stop an endpoint's deliveries until it is enabled (disabled_reason operator); it keeps its place in the event log",
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    response: { status: 200, schema: AdminWebhookSchema },
    errors: ['not_found', 'idempotency_conflict'],
    handler: ({ params, admin }) => switched(admin, params.id, 'disable'),
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/webhooks/{id}/rotate-secret',
    operationId: 'rotateAdminWebhookSecret',
    summary: 'A new signing secret, shown once; the old one keeps signing beside it for the overlap',
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    body: RotateSecretBody,
    response: { status: 200, schema: RotatedWebhookSchema },
    errors: ['not_found', 'idempotency_conflict'],
    handler: async ({ params, body, admin }) =>
      rotateAndShow(admin.webhooks, params.id, body.overlap, adminNow(admin)),
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/webhooks/{id}/test',
    operationId: 'testAdminWebhook',
    summary: 'Send a signed test message now (enabled or not) and answer with how it went',
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    response: { status: 200, schema: TestOutcomeSchema },
    errors: ['not_found', 'idempotency_conflict'],
    handler: async ({ params, admin }) => {
      const outcome = await admin.webhooks.sendTest(params.id);
      if (outcome === undefined) throw new ApiError('not_found', `No webhook ${params.id}.`);
      return outcome;
    },
  }),
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/webhooks/{id}/deliveries',
    operationId: 'listAdminWebhookDeliveries',
    summary: `Recent delivery attempts, newest first (the last ${RECENT_ATTEMPTS} are kept)`,
    tag: TAG,
    access: { kind: 'owner' },
    resource: 'webhook',
    params: idParams,
    query: DeliveriesQuery,
    response: { status: 200, schema: DeliveriesPage },
    errors: ['not_found'],
    handler: async ({ params, query, admin }) => {
      found(admin.webhooks, params.id);
      return deliveriesPage(admin.webhooks, params.id, query.limit);
    },
  }),
];
