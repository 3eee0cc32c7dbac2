/**
 * Packs (docs/packs.md): the catalogue, one pack, a free grant, the delivery history. All four
 * need the plan's `shop` feature (403 premium_required without it) and are never cached: the
 * history changes from the game side (shop purchases, redemptions, relinks) without the daemon
 * seeing it. Decisions where the spec is silent are in docs/packs.md.
 */
import * as z from 'zod';
import { LinkCallError } from '../../protocol/link-calls.ts';
import {
  DELIVERY_STATUSES,
  DeliveryResult,
  MAX_QUANTITY,
  Pack,
  PackDelivery,
} from '../../protocol/ops/packs.ts';
import { ApiError } from '../http/api-error.ts';
import { toApiError } from '../http/link-errors.ts';
import { SQUAD_TAG } from './asset-params.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import {
  booleanParam,
  cursorParam,
  filterRules,
  limitParam,
  platformIdParam,
  positiveIntegerParam,
  searchParam,
  socialIdParam,
} from './params.ts';
import { PLAYERS_TAG } from './players.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const common = {
  tag: 'Packs',
  feature: 'shop',
  cache: { kind: 'no-store' },
} as const;
const READ_ERRORS = ['server_unavailable', 'gateway_timeout'] as const;

/** `{id}` and `pack_id`: a positive integer without leading zeros, else 400. */
export const packIdParam = positiveIntegerParam.describe('Pack id: a positive integer, no leading zeros');

export const listPacks = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/packs',
  operationId: 'listPacks',
  summary: 'The pack catalogue, newest-configured first',
  scope: 'packs:read',
  query: () =>
    z
      .object({
        enabled: booleanParam.optional(),
        category_id: packIdParam.describe('Category id').optional(),
        search: searchParam.optional().describe('Case-insensitive part of the slug or the display name'),
        limit: limitParam(1, 100),
        cursor: cursorParam,
      })
      .strict()
      .superRefine(filterRules({ structured: ['enabled', 'category_id'] })),
  response: { status: 200, schema: () => collection(Pack(), true, 'PackPage') },
  errors: READ_ERRORS,
  handler: ({ query: { cursor, limit, ...filters }, page }) => page('packs.list', filters, { cursor, limit }),
});

export const getPack = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/packs/{id}',
  operationId: 'getPack',
  summary: 'One pack of the catalogue; 404 when there is none (deleted packs included)',
  scope: 'packs:read',
  params: () => z.object({ id: packIdParam }).strict(),
  response: { status: 200, schema: Pack },
  errors: READ_ERRORS,
  handler: ({ params, call }) => call('packs.get', { id: params.id }),
});

const DeliverBody = lazySchema(() =>
  z
    .object({
      platform_id: platformIdParam
        .optional()
        .describe('The recipient; exactly one of platform_id, social_id'),
      social_id: socialIdParam
        .optional()
        .describe('Resolved to the linked player; 404 when linked to nobody'),
      quantity: z
        .number()
        .int()
        .min(1)
        .max(MAX_QUANTITY)
        .optional()
        .meta({ description: '1 to 100; default 1', default: 1 }),
    })
    .strict()
    .superRefine((body, ctx) => {
      const given = [body.platform_id, body.social_id].filter((id) => id !== undefined).length;
      if (given !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: given === 0 ? ['platform_id'] : ['social_id'],
          message: 'send exactly one of platform_id and social_id',
        });
      }
    })
    .meta({
      id: 'PackDeliverRequest',
      oneOf: [
        { required: ['platform_id'], properties: { platform_id: true, social_id: false } },
        { required: ['social_id'], properties: { social_id: true, platform_id: false } },
      ],
    }),
);

/** What link-errors.ts makes of a mod's `unsupported`: compared against, never re-worded here. */
const UNSUPPORTED = toApiError(
  new LinkCallError('remote', 'packs.deliver', 'unsupported', { code: 'unsupported', message: '' }),
) as ApiError;

/**
 * docs/packs.md#delivering-a-pack, 409 conflict: a game server too old to honour a free grant. Such a mod answers
 * `unsupported` (it lacks the op, or this variant of it), which every other route reports as 404.
 */
export function tooOldForGrants(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code !== UNSUPPORTED.code || error.message !== UNSUPPORTED.message) return error;
  return new ApiError(
    'conflict',
    'The game server is too old to deliver a pack for free (its mod needs an update); nothing was delivered.',
  );
}

export const deliverPack = defineRoute({
  ...common,
  method: 'POST',
  path: '/v1/packs/{id}/deliver',
  operationId: 'deliverPack',
  summary: 'Deliver a pack to a player for free (source api); send Idempotency-Key',
  scope: 'packs:deliver',
  params: () => z.object({ id: packIdParam }).strict(),
  body: DeliverBody,
  response: { status: 200, schema: DeliveryResult },
  errors: ['conflict', 'idempotency_conflict', 'server_unavailable', 'gateway_timeout'],
  handler: async (ctx) => {
    const { platform_id: platformId, social_id: socialId, quantity } = ctx.body;
    const player = socialId !== undefined ? { social_id: socialId } : { platform_id: platformId as string };
    try {
      return await ctx.call('packs.deliver', {
        pack_id: ctx.params.id,
        player,
        quantity: quantity ?? 1,
        actor: ctx.actor,
      });
    } catch (error) {
      throw tooOldForGrants(error);
    } finally {
      // Inventories and balances may have changed, even on a 503/504.
      ctx.invalidate([PLAYERS_TAG, SQUAD_TAG]);
    }
  },
});

export const listDeliveries = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/packs/deliveries',
  operationId: 'listPackDeliveries',
  summary: "Pack delivery history, newest first; each row shows the player's current social link",
  scope: 'packs:read',
  query: () =>
    z
      .object({
        platform_id: platformIdParam.optional(),
        social_id: socialIdParam
          .optional()
          .describe('Current link; an unlinked social id gives an empty page'),
        pack_id: packIdParam.optional(),
        source: z
          .string()
          .regex(/^[a-z][a-z_]{0,31}$/, 'a source such as api, claim, admin or shop')
          .optional()
          .describe('api, claim, admin, shop, or another source the game records'),
        status: z.enum(DELIVERY_STATUSES).optional(),
        limit: limitParam(1, 100),
        cursor: cursorParam,
      })
      .strict()
      .superRefine(filterRules({ structured: [], pairs: [['platform_id', 'social_id']] })),
  response: { status: 200, schema: () => collection(PackDelivery(), true, 'PackDeliveryPage') },
  errors: READ_ERRORS,
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('packs.deliveries', filters, { cursor, limit }),
});

export const PACK_ROUTES = [listPacks, listDeliveries, getPack, deliverPack];
