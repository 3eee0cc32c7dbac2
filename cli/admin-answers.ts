/**
 * The admin API's answers read back into the CLI's domain objects, whether the daemon or the
 * in-process admin answered (cli/admin-client.ts), each checked against its route's own schema
 * (daemon/admin/routes/), so no copy of an answer's shape is kept here. An answer that does not have the documented shape is a CliError, never
 * a half-printed result.
 */
import * as z from 'zod';
import { DeliveryAttemptSchema, endpointShape } from '../daemon/routes/webhooks-common.ts';
import { lazySchema } from '../protocol/lazy-schema.ts';
import type { EndpointView, recentAttempts } from '../daemon/events/webhooks/views.ts';
import type { AdminTokenView, CreatedAdminToken } from '../daemon/store/admin-tokens.ts';
import type { Plan } from '../daemon/store/state.ts';
import { planView } from '../daemon/admin/routes/status.ts';
import { createdToken, tokenView } from '../daemon/admin/routes/tokens.ts';
import type { AdminClient } from './admin-client.ts';
import { CliError } from './errors.ts';

/** A plan as `/admin/v1/plan` gives it (GET, and PUT's answer). */
export function planFromAnswer(body: unknown, path = '/plan'): Plan {
  const parsed = planView().safeParse(body);
  if (!parsed.success) throw unexpectedAnswer(path);
  const { premium, until, features } = parsed.data;
  return { premium, until: until === null ? null : new Date(until), features };
}

/** The daemon's plan. */
export async function planOf(admin: AdminClient): Promise<Plan> {
  return planFromAnswer((await admin.send({ method: 'GET', path: '/plan' })).body);
}

/** Whether the daemon's /v1 API is enabled (GET /admin/v1/api). */
export async function apiEnabledOf(admin: AdminClient): Promise<boolean> {
  const { body } = await admin.send({ method: 'GET', path: '/api' });
  const enabled = (body as { enabled?: unknown } | null)?.enabled;
  if (typeof enabled !== 'boolean') throw unexpectedAnswer('/api');
  return enabled;
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
export function tokensFromAnswer(body: unknown): AdminTokenView[] {
  const parsed = z.looseObject({ data: z.array(tokenView()) }).safeParse(body);
  if (!parsed.success) throw unexpectedAnswer('/tokens');
  return parsed.data.data.map(({ id, name, status, created_at, last_used_at, revoked_at }) => ({
    id,
    name,
    status,
    created_at,
    last_used_at,
    revoked_at,
  }));
}

/** POST /admin/v1/tokens: the new token, its text shown once. */
export function createdTokenFromAnswer(body: unknown): CreatedAdminToken {
  const parsed = createdToken().safeParse(body);
  // The token is null only in an Idempotency-Key replay, which the CLI never asks for.
  if (!parsed.success || parsed.data.token === null) throw unexpectedAnswer('/tokens');
  const { id, name, token, created_at } = parsed.data;
  return { id, name, token, created_at };
}

/** A webhook endpoint as /admin/v1/webhooks shows it, cut to the view the CLI prints. */
const webhookView = lazySchema(() => z.object(endpointShape()));

export function webhookViewFromAnswer(body: unknown): EndpointView {
  const parsed = webhookView().safeParse(body);
  if (!parsed.success) throw unexpectedAnswer('/webhooks');
  return parsed.data;
}

/** GET /admin/v1/webhooks: every endpoint (one page: the daemon holds at most 50). */
export function webhookViewsFromAnswer(body: unknown): EndpointView[] {
  const parsed = z.looseObject({ data: z.array(webhookView()) }).safeParse(body);
  if (!parsed.success) throw unexpectedAnswer('/webhooks');
  return parsed.data.data;
}

/** GET /admin/v1/webhooks/{id}/deliveries. */
export function attemptsFromAnswer(body: unknown): ReturnType<typeof recentAttempts> {
  const parsed = z.looseObject({ data: z.array(DeliveryAttemptSchema()) }).safeParse(body);
  if (!parsed.success) throw unexpectedAnswer('/webhooks/{id}/deliveries');
  return parsed.data.data;
}
