/**
 * Claim codes (docs/packs.md#claim-codes): mint, list, revoke. All three need the plan's `shop`
 * feature (403 premium_required without it) and are never cached: a code's status and
 * delivery_status move on the game side (redemptions, expiry, the direct-message queue).
 * Decisions where the spec is silent are in docs/packs.md.
 */
import * as z from 'zod';
import {
  CLAIM_SOURCES,
  CLAIM_STATUSES,
  ClaimCode,
  MAX_EXPIRY_DAYS,
  MAX_USES,
  MintedClaimCode,
  RevokedClaimCode,
} from '../../protocol/ops/packs.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import { cursorParam, limitParam, platformIdParam, positiveIdParam } from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

/** docs/openapi.md#decisions-where-the-spec-is-silent: `pack_id` is a string positive integer, in the body and the query. */
const packIdText = positiveIdParam.describe('Pack id: a string positive integer, no leading zeros');

const common = {
  tag: 'Claim codes',
  feature: 'shop',
  cache: { kind: 'no-store' },
} as const;

/**
 * 2147483647 as 2,147,483,647. Not `toLocaleString('en')`: the first Intl call loads ICU's locale
 * data, which cost `serve` about 5% of its start-up CPU for this one description
 * (docs/performance-history.md, "What changed, and what each bought").
 */
function withThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** A code as players type it: letters, digits and hyphens; read in any case. */
const codeParam = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,64}$/, 'a claim code: letters, digits and hyphens')
  .transform((code) => code.toUpperCase());

const MintBody = lazySchema(() =>
  z
    .object({
      pack_id: packIdText,
      platform_id: platformIdParam
        .optional()
        .describe('The only player who may redeem it; omit for a public code (no direct message)'),
      max_uses: z
        .number()
        .int()
        .min(1)
        .max(MAX_USES, `at most ${MAX_USES}, the largest count the game stores`)
        .optional()
        .meta({
          description: `Integer >= 1 (the game stores up to ${withThousands(MAX_USES)}); default 1`,
          default: 1,
        }),
      expiry_days: z
        .number()
        .int()
        .min(0)
        .max(MAX_EXPIRY_DAYS)
        .optional()
        .meta({ description: '0 to 3650; 0 = never expires (default)', default: 0 }),
    })
    .strict()
    .meta({ id: 'ClaimCodeMintRequest' }),
);

export const mintClaimCode = defineRoute({
  ...common,
  method: 'POST',
  path: '/v1/claim-codes',
  operationId: 'mintClaimCode',
  summary: 'Mint a claim code for a pack; a linked recipient also gets it by direct message',
  scope: 'claim_codes:write',
  body: MintBody,
  response: { status: 201, schema: MintedClaimCode },
  errors: ['idempotency_conflict', 'server_unavailable', 'gateway_timeout'],
  handler: (ctx) =>
    ctx.call('claim_codes.mint', {
      pack_id: ctx.body.pack_id,
      platform_id: ctx.body.platform_id ?? null,
      max_uses: ctx.body.max_uses ?? 1,
      expiry_days: ctx.body.expiry_days ?? 0,
      actor: ctx.actor,
    }),
});

export const listClaimCodes = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/claim-codes',
  operationId: 'listClaimCodes',
  summary: 'Claim codes, newest first, with their status and direct-message delivery',
  scope: 'claim_codes:read',
  query: () =>
    z
      .object({
        pack_id: packIdText.optional(),
        source: z.enum(CLAIM_SOURCES).optional(),
        status: z.enum(CLAIM_STATUSES).optional(),
        target: z
          .string()
          .regex(/^[0-9]{1,17}$/, 'digits of a platform id')
          .optional()
          .describe("Digits anywhere in the target's platform id (partial match)"),
        limit: limitParam(1, 100),
        cursor: cursorParam,
      })
      .strict(),
  response: { status: 200, schema: () => collection(ClaimCode(), true, 'ClaimCodePage') },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('claim_codes.list', filters, { cursor, limit }),
});

export const revokeClaimCode = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/v1/claim-codes/{code}',
  operationId: 'revokeClaimCode',
  summary: 'Revoke a claim code so it can no longer be redeemed (repeatable)',
  scope: 'claim_codes:write',
  params: () => z.object({ code: codeParam.describe('The code, any case') }).strict(),
  response: { status: 200, schema: RevokedClaimCode },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: (ctx) => ctx.call('claim_codes.revoke', { code: ctx.params.code, actor: ctx.actor }),
});

export const CLAIM_CODE_ROUTES = [mintClaimCode, listClaimCodes, revokeClaimCode];
