/**
 * What the webhook routes of /v1/webhooks (a key's own endpoints) and the admin API's
 * /admin/v1/webhooks (every endpoint) share: the schemas, so both validate a registration, show
 * an endpoint and take a rotation the same way and the two OpenAPI documents agree, and the
 * registration and rotation steps, so the address check and the registry's limits apply alike.
 * Who registers decides the rest (address-policy.ts): a key, public addresses over https only;
 * the operator, loopback, `[webhooks] allow_networks` and `allow_http` too.
 */
import * as z from 'zod';
import {
  ALL_EVENTS,
  WEBHOOK_FORMATS,
  WEBHOOK_ID_PATTERN,
  type EventSelector,
} from '../events/webhooks/endpoint-file.ts';
import {
  DEFAULT_SECRET_OVERLAP_SEC,
  EndpointChangeError,
  MAX_SECRET_OVERLAP_SEC,
} from '../events/webhooks/endpoint-changes.ts';
import { RECENT_ATTEMPTS } from '../events/webhooks/outbox-state.ts';
import { createdView, recentAttempts, rotatedView } from '../events/webhooks/views.ts';
import type { WebhookService } from '../events/webhooks/webhook-service.ts';
import { ApiError } from '../http/api-error.ts';
import { collection } from './collection.ts';
import { limitParam } from './params.ts';
import { DELIVERY_FAILURES } from '../events/webhooks/delivery-failure.ts';
import { checkWebhookUrl, WEBHOOK_URL_MAX_LENGTH } from '../events/webhooks/url-policy.ts';
import { EVENT_TYPES } from '../events/types.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export const eventSelector = z.enum([ALL_EVENTS, ...EVENT_TYPES]);

export const endpointShape = lazySchema(() => ({
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
  previous_secret_until: z
    .string()
    .nullable()
    .describe('While a rotated-out secret still signs beside the current one: until when; else null'),
}));

export const WebhookEndpointSchema = lazySchema(() =>
  z.object(endpointShape()).meta({ id: 'WebhookEndpoint' }),
);
export const CreatedWebhookSchema = lazySchema(() =>
  z
    .object({ ...endpointShape(), secret: z.string().describe('whsec_…; shown only in this answer') })
    .meta({ id: 'WebhookEndpointCreated' }),
);

export const DeliveryAttemptSchema = lazySchema(() =>
  z
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
    .meta({ id: 'WebhookDeliveryAttempt' }),
);

const createFields = lazySchema(() => ({
  url: z
    .string()
    .max(WEBHOOK_URL_MAX_LENGTH)
    .describe('https to a public address; the name must resolve to public addresses only'),
  events: z.array(eventSelector).min(1).describe('Event types, or ["*"] for all'),
  format: z.enum(WEBHOOK_FORMATS).optional().describe('Default: standard'),
  description: z.string().max(200).optional(),
}));

/** The URL's form (url-policy.ts), with plain http to a non-loopback host only when allowed. */
function urlIssue(url: string, allowHttp: boolean, ctx: z.RefinementCtx): void {
  const checked = checkWebhookUrl(url, { allowHttp });
  if ('error' in checked) ctx.addIssue({ code: 'custom', path: ['url'], message: checked.error });
}

/** A key's registration (POST /v1/webhooks): https, public addresses. */
/** GET …/webhooks/{id}/deliveries: the recent attempts the outbox keeps, in one page. */
export const DeliveriesQuery = lazySchema(() => z.object({ limit: limitParam(1, RECENT_ATTEMPTS) }).strict());
export const DeliveriesPage = lazySchema(() =>
  collection(DeliveryAttemptSchema(), false, 'WebhookDeliveryAttemptPage'),
);

export function deliveriesPage(webhooks: WebhookService, id: string, limit: number) {
  return { data: recentAttempts(webhooks.outbox(id), limit), has_more: false, next_cursor: null };
}

export const CreateBody = lazySchema(() =>
  z
    .object(createFields())
    .strict()
    .superRefine((body, ctx) => urlIssue(body.url, false, ctx))
    .meta({ id: 'WebhookCreateRequest' }),
);

/**
 * The operator's registration (POST /admin/v1/webhooks): as `modgate webhooks add`, loopback and
 * `[webhooks] allow_networks` too, and plain http elsewhere when `allow_http` says so.
 */
export const OperatorCreateBody = lazySchema(() =>
  z
    .object({
      ...createFields(),
      url: createFields().url.describe(
        'https (plain http to loopback, or anywhere with allow_http) to a public address, loopback or a network in [webhooks] allow_networks',
      ),
      allow_http: z
        .boolean()
        .optional()
        .describe('Allow plain http to a non-loopback host (events travel unencrypted); default false'),
    })
    .strict()
    .superRefine((body, ctx) => urlIssue(body.url, body.allow_http === true, ctx))
    .meta({ id: 'AdminWebhookCreateRequest' }),
);

/**
 * The operator's edit (PATCH /admin/v1/webhooks/{id}): what an endpoint receives and its note, at
 * least one of them; `description` null or blank clears it. The URL is not here: a new receiver
 * is a new endpoint, with a secret of its own.
 */
export const OperatorEditBody = lazySchema(() =>
  z
    .object({
      events: createFields().events.optional(),
      description: z.string().max(200).nullable().optional().describe('null or blank clears it'),
    })
    .strict()
    .refine((body) => body.events !== undefined || body.description !== undefined, {
      message: 'name events, description or both',
    })
    .meta({ id: 'AdminWebhookEditRequest' }),
);

/** Edits a registered endpoint's events or description, as the body above says. */
export async function editEndpointOf(
  webhooks: WebhookService,
  id: string,
  body: { events?: readonly string[] | undefined; description?: string | null | undefined },
) {
  try {
    return await webhooks.edit(id, {
      ...(body.events === undefined ? {} : { events: selectedEvents(body.events) }),
      ...(body.description === undefined ? {} : { description: body.description?.trim() || null }),
    });
  } catch (error) {
    throw changeError(error);
  }
}

export const idParams = lazySchema(() =>
  z
    .object({ id: z.string().regex(WEBHOOK_ID_PATTERN, 'a webhook id: wh_ and 16 characters a-z0-9') })
    .strict(),
);

export const RotateSecretBody = lazySchema(() =>
  z
    .object({
      overlap: z
        .number()
        .int()
        .min(0)
        .max(MAX_SECRET_OVERLAP_SEC)
        .optional()
        .describe(
          `Seconds the old secret keeps signing beside the new one (default ${DEFAULT_SECRET_OVERLAP_SEC}, at most ${MAX_SECRET_OVERLAP_SEC}; 0 stops it at once)`,
        ),
    })
    .strict()
    .meta({ id: 'WebhookRotateSecretRequest' }),
);

export const RotatedWebhookSchema = lazySchema(() =>
  z
    .object({ ...endpointShape(), secret: z.string().describe('The new whsec_…; shown only in this answer') })
    .meta({ id: 'WebhookEndpointRotated' }),
);

/** Who registers an endpoint, and what that allows. */
export interface Registrant {
  /** The API key's id; null for the operator (the admin API, the CLI). */
  readonly createdBy: string | null;
  /** Plain http to a non-loopback host: the operator's choice only. */
  readonly allowHttp: boolean;
  /** Payloads keep the fields guarded by `players:read_sensitive` (docs/events.md). */
  readonly sensitiveFields: boolean;
}

export interface RegistrationBody {
  url: string;
  events: readonly string[];
  format?: (typeof WEBHOOK_FORMATS)[number] | undefined;
  description?: string | undefined;
}

/** `["*"]` when every type is asked for, else the types in catalogue order. */
function selectedEvents(events: readonly string[]): EventSelector[] {
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : EVENT_TYPES.filter((type) => events.includes(type));
}

/**
 * The address check, which needs a lookup: refused like any other invalid field. The rule is the
 * registrant's (a key: public addresses; the operator: loopback and its allowed networks too).
 */
async function checkAddress(webhooks: WebhookService, url: URL, createdBy: string | null): Promise<void> {
  const refused = await webhooks.checkTarget(url, createdBy);
  if (refused === null) return;
  const message =
    createdBy === null
      ? `not an address webhooks may reach (allow its network with [webhooks] allow_networks): ${refused}`
      : `a webhook registered through the API must reach a public address: ${refused}`;
  throw new ApiError('validation_error', `Invalid body.url: ${message}`, {
    details: { errors: [{ in: 'body', path: 'url', message }] },
  });
}

/** Registers a validated body for `who`; the answer shows the secret, once (201). */
export async function registerEndpoint(webhooks: WebhookService, body: RegistrationBody, who: Registrant) {
  const url = new URL(body.url);
  await checkAddress(webhooks, url, who.createdBy);
  try {
    const endpoint = await webhooks.create({
      url: url.href,
      events: selectedEvents(body.events),
      format: body.format ?? 'standard',
      allowHttp: who.allowHttp,
      sensitiveFields: who.sensitiveFields,
      description: body.description?.trim() || null,
      createdBy: who.createdBy,
    });
    return createdView(endpoint);
  } catch (error) {
    throw changeError(error);
  }
}

/** Rotates a registered endpoint's secret; the answer shows the new one, once. */
export async function rotateAndShow(
  webhooks: WebhookService,
  id: string,
  overlap: number | undefined,
  now = new Date(),
) {
  try {
    const rotated = await webhooks.rotateSecret(id, overlap ?? DEFAULT_SECRET_OVERLAP_SEC);
    return rotatedView(rotated, webhooks.outbox(id), now);
  } catch (error) {
    throw changeError(error);
  }
}

/** An endpoint change refused by its rules (endpoint-changes.ts), as the API's envelope. */
export function changeError(error: unknown): unknown {
  if (!(error instanceof EndpointChangeError)) return error;
  // owner_gone and registry_full: the registry's state forbids it.
  return new ApiError(error.code === 'not_found' ? 'not_found' : 'conflict', error.message);
}
