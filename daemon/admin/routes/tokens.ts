/**
 * /admin/v1/tokens (docs/admin.md, "Admin tokens"): list, create (the token shown once in the
 * answer), revoke. The same functions as `modgate admin tokens` (daemon/store/admin-tokens.ts);
 * each change is applied to the running daemon before the answer, so a revoked token is refused
 * from the next request on, on every connection, and the streams it opened are cut (onRevoked).
 */
import * as z from 'zod';
import { ApiError } from '../../http/api-error.ts';
import {
  ADMIN_TOKEN_ID_PATTERN,
  AdminTokenError,
  adminTokenName,
  adminTokensFile,
  createAdminToken,
  issueInvite,
  MAX_ADMIN_TOKENS,
  revokeAdminToken,
  viewOf,
} from '../../store/admin-tokens.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { ADMIN_ROLES } from '../roles.ts';
import { adminNow, type AdminServices } from '../services.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';
import { LoginCode } from './session.ts';

/** An admin token as listed; the CLI checks answers against it (cli/admin-answers.ts). */
export const tokenView = lazySchema(() =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      status: z.enum(['active', 'revoked']),
      role: z.enum(ADMIN_ROLES).describe('What the token may do (docs/admin.md, "Roles")'),
      created_at: z.iso.datetime({ offset: true }),
      last_used_at: z.iso.datetime({ offset: true }).nullable(),
      revoked_at: z.iso.datetime({ offset: true }).nullable(),
    })
    .meta({ id: 'AdminToken' }),
);

export const createdToken = lazySchema(() =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      role: z.enum(ADMIN_ROLES),
      token: z
        .string()
        .nullable()
        .describe(
          'The token text, `mgadm_<id>_<secret>`: shown only in this answer; null in an ' +
            'Idempotency-Key replay, since the text is never written to disk.',
        ),
      created_at: z.iso.datetime({ offset: true }),
      invite: LoginCode()
        .nullable()
        .describe('The sign-in link asked for with `invite: true`; null otherwise and in a replay'),
    })
    .meta({ id: 'CreatedAdminToken' }),
);

const CreateBody = lazySchema(() =>
  z
    .object({
      name: adminTokenName,
      role: z.enum(ADMIN_ROLES).default('owner').describe('What the token may do; default owner'),
      invite: z.boolean().default(false).describe('Also make a one-time sign-in link for the panel'),
    })
    .strict(),
);

const tokenId = lazySchema(() =>
  z.object({
    id: z.string().regex(ADMIN_TOKEN_ID_PATTERN, 'an admin token id: 12 characters a-z0-9'),
  }),
);

export const tokenRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/tokens',
    operationId: 'listAdminTokens',
    summary: 'List admin tokens (never their text)',
    description: `Every admin token, oldest first, revoked ones included (at most ${MAX_ADMIN_TOKENS}: one page).`,
    tag: 'Tokens',
    resource: 'admin_token',
    access: { kind: 'owner' },
    response: {
      status: 200,
      schema: () =>
        z.object({
          data: z.array(tokenView()),
          has_more: z.boolean(),
          next_cursor: z.string().nullable(),
        }),
    },
    errors: [],
    handler: async ({ admin }) => {
      const records = await admin.dataDir.read(adminTokensFile);
      const data = records.map((record) => {
        const lastUsed = admin.tokens.lastUsedAt(record);
        return { ...viewOf(record), last_used_at: lastUsed?.toISOString() ?? null };
      });
      return { data, has_more: false, next_cursor: null };
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/tokens',
    operationId: 'createAdminToken',
    summary: 'Create an admin token; its text is in this answer only',
    tag: 'Tokens',
    resource: 'admin_token',
    access: { kind: 'owner' },
    body: CreateBody,
    response: { status: 201, schema: createdToken },
    shownOnce: ['token', 'invite'],
    errors: ['conflict', 'idempotency_conflict'],
    handler: async ({ admin, body }) => {
      const created = await createAdminToken(admin.dataDir, body.name, adminNow(admin), body.role).catch(
        rethrowTokenRefusal,
      );
      const link = body.invite ? await inviteOf(admin, created.id) : null;
      await admin.apply('adminTokens');
      return { ...created, invite: link };
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/tokens/{id}/invite',
    operationId: 'inviteAdminToken',
    summary: "A new one-time sign-in link for a token's holder, replacing an unspent one",
    description:
      'The link signs a browser in as this token once, within 7 days, also after a restart (only its hash is kept). 409 for a revoked token.',
    tag: 'Tokens',
    resource: 'admin_token',
    access: { kind: 'owner' },
    params: tokenId,
    body: () => z.object({}).strict(),
    response: { status: 201, schema: LoginCode },
    shownOnce: ['code', 'url'],
    errors: ['conflict', 'idempotency_conflict'],
    handler: async ({ admin, params }) => {
      const link = await inviteOf(admin, params.id);
      await admin.apply('adminTokens');
      return link;
    },
  }),
  defineAdminRoute({
    method: 'DELETE',
    path: '/admin/v1/tokens/{id}',
    operationId: 'revokeAdminToken',
    summary: 'Revoke an admin token: refused from the next request on',
    tag: 'Tokens',
    resource: 'admin_token',
    access: { kind: 'owner' },
    params: tokenId,
    response: { status: 204 },
    errors: [],
    handler: async ({ admin, params }) => {
      await revokeAdminToken(admin.dataDir, params.id, adminNow(admin)).catch(rethrowTokenRefusal);
      await admin.apply('adminTokens');
    },
  }),
];

/** A new sign-in link for token `id`, with the panel's address when the TCP listener runs. */
async function inviteOf(admin: AdminServices, id: string) {
  const { code, expires_at } = await issueInvite(admin.dataDir, id, adminNow(admin)).catch(
    rethrowTokenRefusal,
  );
  const base = admin.panel.url();
  return { code, url: base === null ? null : `${base}/login#${code}`, expires_at };
}

/** Rethrows an AdminTokenError as the API's refusal (404, or 409 for a full registry); anything else as it was. */
function rethrowTokenRefusal(error: unknown): never {
  if (error instanceof AdminTokenError) {
    throw new ApiError(error.code === 'not_found' ? 'not_found' : 'conflict', error.message);
  }
  throw error;
}
