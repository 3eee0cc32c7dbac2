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
  MAX_ADMIN_TOKENS,
  revokeAdminToken,
  viewOf,
} from '../../store/admin-tokens.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { adminNow } from '../services.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

/** An admin token as listed; the CLI checks answers against it (cli/admin-answers.ts). */
export const tokenView = lazySchema(() =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      status: z.enum(['active', 'revoked']),
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
      token: z
        .string()
        .nullable()
        .describe(
          'The token text, `mgadm_<id>_<secret>`: shown only in this answer; null in an ' +
            'Idempotency-Key replay, since the text is never written to disk.',
        ),
      created_at: z.iso.datetime({ offset: true }),
    })
    .meta({ id: 'CreatedAdminToken' }),
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
    body: () => z.object({ name: adminTokenName }).strict(),
    response: { status: 201, schema: createdToken },
    shownOnce: ['token'],
    errors: ['conflict', 'idempotency_conflict'],
    handler: async ({ admin, body }) => {
      const created = await createAdminToken(admin.dataDir, body.name, adminNow(admin)).catch(
        rethrowTokenRefusal,
      );
      await admin.apply('adminTokens');
      return created;
    },
  }),
  defineAdminRoute({
    method: 'DELETE',
    path: '/admin/v1/tokens/{id}',
    operationId: 'revokeAdminToken',
    summary: 'Revoke an admin token: refused from the next request on',
    tag: 'Tokens',
    resource: 'admin_token',
    params: tokenId,
    response: { status: 204 },
    errors: [],
    handler: async ({ admin, params }) => {
      await revokeAdminToken(admin.dataDir, params.id, adminNow(admin)).catch(rethrowTokenRefusal);
      await admin.apply('adminTokens');
    },
  }),
];

/** Rethrows an AdminTokenError as the API's refusal (404, or 409 for a full registry); anything else as it was. */
function rethrowTokenRefusal(error: unknown): never {
  if (error instanceof AdminTokenError) {
    throw new ApiError(error.code === 'not_found' ? 'not_found' : 'conflict', error.message);
  }
  throw error;
}
