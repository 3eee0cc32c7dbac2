/**
 * /admin/v1/keys (docs/admin.md, "API keys"): list, create, read, change, revoke and roll the
 * server's API keys. The rules are daemon/store/key-admin.ts's (`modgate keys` sends these
 * requests, to the daemon or its in-process admin); each write is applied to the snapshot before the answer (a new key works at
 * once, a revoked one is refused at once, open event streams of it included). A key's text is
 * shown once, in the answer that creates it; never its hash.
 */
import * as z from 'zod';
import { handOverWebhooks } from '../../events/webhooks/key-handover.ts';
import { ApiError } from '../../http/api-error.ts';
import { CursorCodec } from '../../http/cursor.ts';
import { collection } from '../../routes/collection.ts';
import { cursorParam, limitParam, platformIdParam, socialIdParam } from '../../routes/params.ts';
import { SCOPES } from '../../scopes.ts';
import { normaliseAllowIp } from '../../store/allow-ip.ts';
import { displayName, durationMs, InputRuleError } from '../../store/input-rules.ts';
import {
  createKey,
  DEFAULT_ROLL_OVERLAP_MS,
  KeyAdminError,
  keyView,
  MAX_ALLOW_IPS,
  MAX_ROLL_OVERLAP_MS,
  revokeKey,
  rollKey,
  updateKey,
  type KeyView,
} from '../../store/key-admin.ts';
import { API_KEY_ID_PATTERN, KEY_NAME_MAX_LENGTH, type ApiKeyRecord } from '../../store/keys-file.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { adminNow, type AdminServices } from '../services.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

const date = z.iso.datetime({ offset: true });

/** An API key as the admin API shows it; the CLI checks answers against it (cli/key-requests.ts). */
export const adminKey = lazySchema(() =>
  z
    .object({
      id: z.string().describe('The public part of the key text (`mg_live_<id>_…`).'),
      name: z.string(),
      status: z.enum(['active', 'expired', 'revoked']),
      scopes: z.array(z.enum(SCOPES)),
      allow_ips: z.array(z.string()).describe('CIDR ranges the key is accepted from; empty: any address.'),
      owner_platform_id: z.string().nullable(),
      owner_social_id: z.string().nullable(),
      created_at: date,
      expires_at: date.nullable().describe('null: never expires.'),
      revoked_at: date.nullable(),
      last_used_at: date.nullable().describe('When the key last authenticated on /v1; null: never.'),
      last_used_ip: z.string().nullable().describe('The client address of that request.'),
      rolled_from: z.string().nullable().describe('The key this one replaced (POST …/roll).'),
      rolled_to: z.string().nullable().describe('The key that replaced this one.'),
    })
    .meta({ id: 'AdminKey' }),
);

export const issuedKey = lazySchema(() =>
  adminKey()
    .extend({
      key: z
        .string()
        .nullable()
        .describe(
          'The key text: shown in this answer only, never again; null when the answer is an ' +
            'Idempotency-Key replay, since the text is never written to disk.',
        ),
    })
    .meta({ id: 'AdminIssuedKey' }),
);

export const rolledKey = lazySchema(() =>
  issuedKey()
    .extend({ old: adminKey().describe('The old key, now expiring at the end of the overlap.') })
    .meta({ id: 'AdminRolledKey' }),
);

/** A value checked by one of daemon/store/input-rules.ts's rules, as `modgate keys` checks it. */
function byRule<T>(check: (value: string) => T) {
  return z
    .string()
    .max(200)
    .transform((value, ctx) => {
      try {
        return check(value);
      } catch (error) {
        if (!(error instanceof InputRuleError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
        return z.NEVER;
      }
    });
}

const keyName = lazySchema(() => byRule((value) => displayName(value, KEY_NAME_MAX_LENGTH)));
const duration = lazySchema(() => byRule((value) => durationMs(value)));
const allowIps = lazySchema(() =>
  z
    .array(
      z
        .string()
        .max(64)
        .transform((text, ctx) => {
          const canonical = normaliseAllowIp(text);
          if (canonical === null) {
            ctx.addIssue({
              code: 'custom',
              message: 'not an IP address or CIDR range, e.g. 203.0.113.7, 10.0.0.0/8',
            });
            return z.NEVER;
          }
          return canonical;
        }),
    )
    .max(MAX_ALLOW_IPS)
    .transform((entries) => [...new Set(entries)]),
);

const createBody = lazySchema(() =>
  z.strictObject({
    name: keyName(),
    scopes: z
      .array(z.enum(SCOPES))
      .min(1)
      .max(SCOPES.length * 2)
      .transform((given) => SCOPES.filter((scope) => given.includes(scope))),
    allow_ips: allowIps().optional(),
    expires_in: duration().optional().describe('90m, 12h, 30d, 2w; absent: never expires.'),
    owner_platform_id: platformIdParam.optional(),
    owner_social_id: socialIdParam.optional(),
  }),
);

const updateBody = lazySchema(() =>
  z
    .strictObject({
      name: keyName().optional(),
      allow_ips: allowIps().optional(),
      expires_in: duration().optional().describe('A new expiry, this long from now.'),
      expires_at: date.nullable().optional().describe('A new expiry; null: never expires.'),
    })
    .refine((body) => Object.values(body).some((value) => value !== undefined), 'give at least one field')
    .refine((body) => body.expires_in === undefined || body.expires_at === undefined, {
      message: 'give expires_in or expires_at, not both',
      path: ['expires_at'],
    }),
);

const rollBody = lazySchema(() =>
  z.strictObject({
    expire_old_in: byRule((value) => durationMs(value, MAX_ROLL_OVERLAP_MS))
      .optional()
      .describe('How long the old key keeps working: 90m, 12h, 30d (at most); default 1h.'),
  }),
);

const idParams = lazySchema(() =>
  z.object({ id: z.string().regex(API_KEY_ID_PATTERN, 'a key id: 12 characters a-z0-9') }),
);

const listQuery = lazySchema(() =>
  z.object({
    status: z.enum(['active', 'expired', 'revoked']).optional(),
    limit: limitParam(1, 100),
    cursor: cursorParam,
  }),
);

const LIST_OPERATION = 'listAdminKeys';

export const keyRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/keys',
    operationId: LIST_OPERATION,
    summary: 'The API keys, oldest first, with their status and last use',
    tag: 'Keys',
    access: { kind: 'owner' },
    resource: 'key',
    query: listQuery,
    response: { status: 200, schema: () => collection(adminKey(), false, 'AdminKeyPage') },
    errors: ['validation_error'],
    handler: async ({ query, admin }) => {
      const now = adminNow(admin);
      const usage = admin.keyUsage.usage();
      const views = servedKeys(admin).map((record) => keyView(record, usage.get(record.id), now));
      return page(admin, views, query);
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/keys',
    operationId: 'createAdminKey',
    summary: 'Create an API key; its text is in this answer only',
    description: 'Refused with 403 premium_required while the server has no active premium plan, as /v1 is.',
    tag: 'Keys',
    access: { kind: 'owner' },
    resource: 'key',
    body: createBody,
    response: { status: 201, schema: issuedKey },
    shownOnce: ['key'],
    errors: ['validation_error', 'premium_required'],
    handler: async ({ body, admin }) => {
      const now = adminNow(admin);
      const request = {
        name: body.name,
        scopes: body.scopes,
        allowIps: body.allow_ips ?? [],
        ownerPlatformId: body.owner_platform_id ?? null,
        ownerSocialId: body.owner_social_id ?? null,
        expiresInMs: body.expires_in ?? null,
      };
      const issued = await applied(admin, () => createKey(admin.dataDir, request, now));
      return { ...keyView(issued.record, undefined, now), key: issued.key };
    },
  }),
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/keys/{id}',
    operationId: 'getAdminKey',
    summary: 'One API key',
    tag: 'Keys',
    access: { kind: 'owner' },
    resource: 'key',
    params: idParams,
    response: { status: 200, schema: adminKey },
    errors: ['not_found'],
    handler: async ({ params, admin }) => {
      const record = servedKeys(admin).find((candidate) => candidate.id === params.id);
      if (record === undefined) throw keyRefusal(new KeyAdminError('key_not_found', params.id));
      return keyView(record, admin.keyUsage.usage().get(record.id), adminNow(admin));
    },
  }),
  defineAdminRoute({
    method: 'PATCH',
    path: '/admin/v1/keys/{id}',
    operationId: 'updateAdminKey',
    summary: "Change an API key's name, allowlist or expiry",
    tag: 'Keys',
    access: { kind: 'owner' },
    resource: 'key',
    params: idParams,
    body: updateBody,
    response: { status: 200, schema: adminKey },
    errors: ['validation_error', 'not_found', 'conflict'],
    handler: async ({ params, body, admin }) => {
      const now = adminNow(admin);
      const expiresAt =
        body.expires_in !== undefined
          ? new Date(now.getTime() + body.expires_in)
          : body.expires_at === undefined
            ? undefined
            : body.expires_at === null
              ? null
              : new Date(body.expires_at);
      const changes = {
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.allow_ips === undefined ? {} : { allowIps: body.allow_ips }),
        ...(expiresAt === undefined ? {} : { expiresAt }),
      };
      const record = await applied(admin, () => updateKey(admin.dataDir, params.id, changes, now));
      return keyView(record, admin.keyUsage.usage().get(record.id), now);
    },
  }),
  defineAdminRoute({
    method: 'DELETE',
    path: '/admin/v1/keys/{id}',
    operationId: 'revokeAdminKey',
    summary: 'Revoke an API key: refused at once, open event streams of it closed',
    description: 'The record stays, with revoked_at; revoking a revoked key changes nothing (204).',
    tag: 'Keys',
    access: { kind: 'owner' },
    resource: 'key',
    params: idParams,
    response: { status: 204 },
    errors: ['not_found'],
    handler: async ({ params, admin }) => {
      await applied(admin, () => revokeKey(admin.dataDir, params.id, adminNow(admin)));
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/keys/{id}/roll',
    operationId: 'rollAdminKey',
    summary: 'Replace an API key by a new one; the old one works until expire_old_in passes',
    description:
      'The new key has a new id (the id is part of the key text) and the old key’s name, scopes, ' +
      'allowlist, owner and lifetime; it works at once. The old key is refused as expired ' +
      '(401 unauthorized) once the overlap ends. A key is rolled once: roll its successor next.',
    tag: 'Keys',
    access: { kind: 'owner' },
    resource: 'key',
    params: idParams,
    body: rollBody,
    response: { status: 201, schema: rolledKey },
    shownOnce: ['key'],
    errors: ['validation_error', 'not_found', 'conflict', 'premium_required'],
    handler: async ({ params, body, admin }) => {
      const now = adminNow(admin);
      const overlapMs = body.expire_old_in ?? DEFAULT_ROLL_OVERLAP_MS;
      const rolled = await applied(admin, () => rollKey(admin.dataDir, params.id, overlapMs, now));
      await handOverWebhooks(admin.dataDir.path, rolled.old.id, rolled.record.id);
      await admin.webhooks.reload();
      const usage = admin.keyUsage.usage();
      return {
        ...keyView(rolled.record, undefined, now),
        key: rolled.key,
        old: keyView(rolled.old, usage.get(rolled.old.id), now),
      };
    },
  }),
];

/** The keys the daemon serves from now, in keys.json's order. */
function servedKeys(admin: AdminServices): ApiKeyRecord[] {
  return [...admin.snapshot().keysById.values()];
}

/** Runs a key change, then applies it to the running daemon before the answer leaves. */
async function applied<T>(admin: AdminServices, change: () => Promise<T>): Promise<T> {
  const result = await change().catch(rethrowKeyRefusal);
  await admin.apply('keys');
  return result;
}

/** Rethrows a KeyAdminError as the API's refusal of it (keyRefusal); anything else as it was. */
function rethrowKeyRefusal(error: unknown): never {
  throw error instanceof KeyAdminError ? keyRefusal(error) : error;
}

/** A key rule's refusal (daemon/store/key-admin.ts) as the API's error code and message. */
function keyRefusal(error: KeyAdminError): ApiError {
  switch (error.code) {
    case 'key_not_found':
      return new ApiError('not_found', 'No API key with this id.');
    case 'premium_required':
      return new ApiError('premium_required');
    case 'invalid_input':
      return new ApiError('validation_error', undefined, {
        details: { errors: [{ in: 'body', path: error.field ?? '', message: error.message }] },
      });
    default:
      return new ApiError('conflict', `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`);
  }
}

/**
 * One page of the keys that match the filter. The position is the last key shown, in keys.json's
 * order (keys are only ever appended, never removed), so a key whose status changes between two
 * pages neither repeats nor shifts the rest.
 */
function page(admin: AdminServices, views: KeyView[], query: z.output<ReturnType<typeof listQuery>>) {
  const cursors = new CursorCodec(admin.snapshot().identity.daemonSecretKey);
  const scope = { keyId: 'admin', route: LIST_OPERATION, filters: { status: query.status } };
  const after = query.cursor === undefined ? null : cursors.decode(scope, query.cursor);
  const start = after === null ? 0 : views.findIndex((view) => view.id === after) + 1;
  if (after !== null && start === 0) throw new ApiError('validation_error', 'The cursor is no longer valid.');
  const matching = views
    .slice(start)
    .filter((view) => query.status === undefined || view.status === query.status);
  const data = matching.slice(0, query.limit);
  const last = data.at(-1);
  const hasMore = matching.length > query.limit;
  return {
    data,
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? cursors.encode(scope, last.id) : null,
  };
}
