/**
 * The admin API's answers read back into what the CLI prints, whether the daemon or the
 * in-process admin answered (cli/admin-client.ts). Each is checked against its route's own zod
 * schema (daemon/admin/routes/), so a daemon of another version that answers otherwise is said
 * so, never half-printed; and each is typed as the admin API's document gives it
 * (panel/admin-schema.ts, generated): no copy of an answer's shape is kept here.
 */
import * as z from 'zod';
import {
  DeliveryAttemptSchema,
  CreatedWebhookSchema,
  RotatedWebhookSchema,
} from '../daemon/routes/webhooks-common.ts';
import type { Plan } from '../daemon/store/state.ts';
import { planView } from '../daemon/admin/routes/status.ts';
import { apiSwitch } from '../daemon/admin/routes/switches.ts';
import { createdToken, tokenView } from '../daemon/admin/routes/tokens.ts';
import { AdminWebhookSchema } from '../daemon/admin/routes/webhooks.ts';
import type { components } from '../panel/admin-schema.ts';
import type { AdminClient } from './admin-client.ts';
import { CliError } from './errors.ts';

type Schemas = components['schemas'];
export type AdminToken = Schemas['AdminToken'];
/** A new token as `admin tokens create` prints it: its text is never null there. */
export type CreatedToken = Schemas['CreatedAdminToken'] & { token: string };
/** An endpoint as `webhooks list` and `enable` print it: without its owner, as before the admin API. */
export type WebhookView = Omit<Schemas['AdminWebhookEndpoint'], 'owner'>;
/** An endpoint as `webhooks add` and `rotate-secret` print it, with its secret shown once. */
export type WebhookWithSecret = Schemas['WebhookEndpointCreated'] | Schemas['WebhookEndpointRotated'];
export type DeliveryAttempt = Schemas['WebhookDeliveryAttempt'];

/** A plan as `/admin/v1/plan` gives it (GET, and PUT's answer). */
export function planFromAnswer(body: unknown, path = '/plan'): Plan {
  const { premium, until, features }: Schemas['AdminPlan'] = parsed(planView(), body, path);
  return { premium, until: until === null ? null : new Date(until), features };
}

/** The daemon's plan. */
export async function planOf(admin: AdminClient): Promise<Plan> {
  return planFromAnswer((await admin.send({ method: 'GET', path: '/plan' })).body);
}

/** Whether the daemon's /v1 API is enabled (GET /admin/v1/api). */
export async function apiEnabledOf(admin: AdminClient): Promise<boolean> {
  const answer: Schemas['AdminApiSwitch'] = parsed(
    apiSwitch(),
    (await admin.send({ method: 'GET', path: '/api' })).body,
    '/api',
  );
  return answer.enabled;
}

/** The daemon answered 2xx with something other than what docs/admin.md says. */
export function unexpectedAnswer(path: string): CliError {
  return new CliError(
    `the daemon's answer to /admin/v1${path} is not what this modgate expects; is the daemon another version? (modgate --version, and the daemon's log)`,
    1,
    'unexpected_answer',
  );
}

/** GET /admin/v1/tokens: every token (one page: the daemon holds at most 100). */
export function tokensFromAnswer(body: unknown): AdminToken[] {
  return parsed(z.looseObject({ data: z.array(tokenView()) }), body, '/tokens').data;
}

/** POST /admin/v1/tokens: the new token, its text shown once. */
export function createdTokenFromAnswer(body: unknown): CreatedToken {
  const answer = parsed(createdToken(), body, '/tokens');
  // The token is null only in an Idempotency-Key replay, which the CLI never asks for.
  if (answer.token === null) throw unexpectedAnswer('/tokens');
  return { ...answer, token: answer.token };
}

export function webhookViewFromAnswer(body: unknown): WebhookView {
  return withoutOwner(parsed(AdminWebhookSchema(), body, '/webhooks'));
}

/** GET /admin/v1/webhooks: every endpoint (one page: the daemon holds at most 50). */
export function webhookViewsFromAnswer(body: unknown): WebhookView[] {
  return parsed(z.looseObject({ data: z.array(AdminWebhookSchema()) }), body, '/webhooks').data.map(
    withoutOwner,
  );
}

/** POST /admin/v1/webhooks, or …/rotate-secret: the endpoint and its new secret. */
export function webhookWithSecretFromAnswer(body: unknown, rotated: boolean): WebhookWithSecret {
  return parsed(rotated ? RotatedWebhookSchema() : CreatedWebhookSchema(), body, '/webhooks');
}

/** GET /admin/v1/webhooks/{id}/deliveries. */
export function attemptsFromAnswer(body: unknown): DeliveryAttempt[] {
  return parsed(z.looseObject({ data: z.array(DeliveryAttemptSchema()) }), body, '/webhooks/{id}/deliveries')
    .data;
}

function withoutOwner({ owner, ...view }: Schemas['AdminWebhookEndpoint']): WebhookView {
  void owner;
  return view;
}

/** `body` checked against the route's schema, or the unexpected answer to `path`. */
export function parsed<T>(schema: z.ZodType<T>, body: unknown, path: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw unexpectedAnswer(path);
  return result.data;
}
