/**
 * Pack and claim-code ops (PROTOCOL §6): the catalogue, free grants, the delivery history, and
 * minting, listing and revoking claim codes (docs/packs.md). Shapes are the
 * spec's "Pack (catalog record)", "Pack delivery record", "Claim code" and "Pack reference".
 *
 * Pack ids cross the link as decimal strings, as the client wrote them (like asset ids): the mod
 * answers `not_found` for one it does not know, however long. Lists are keyset pages (§6.5).
 */
import * as z from 'zod';
import { readOp as read, writeOp as write } from './define.ts';
import { PlayerRef, WriteActor } from './players.ts';
import { Identity, opPage, pageArgs, platformId, socialId, sqlDateTime } from './schemas.ts';
import { lazySchema } from '../lazy-schema.ts';

export const DELIVERY_STATUSES = [
  'completed',
  'partial',
  'failed',
  'refund_failed',
  'ledger_failed',
] as const;
export const CLAIM_SOURCES = ['partner', 'social', 'panel'] as const;
export const CLAIM_STATUSES = ['active', 'expired', 'exhausted', 'revoked'] as const;
export const CLAIM_DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'target_not_linked', 'unknown'] as const;
export const DM_STATUSES = ['queued', 'target_not_linked', 'not_requested', 'failed'] as const;

/** A pack id as text: a positive decimal without leading zeros. */
export const packId = z.string().regex(/^[1-9][0-9]{0,19}$/);

export const PackRef = lazySchema(() =>
  z
    .object({
      id: z.number().int(),
      name: z.string().nullable().describe('Catalog slug; null once the pack is deleted'),
      display_name: z.string().nullable().describe('Human title; null once the pack is deleted'),
    })

    .meta({ id: 'PackRef' }),
);

export const Pack = lazySchema(() =>
  z
    .object({
      id: z.number().int(),
      name: z.string().describe('Catalog slug'),
      display_name: z.string(),
      description: z.string(),
      category: z.object({ id: z.number().int(), name: z.string() }),
      price: z.number().int().describe('Coin cost in the shop; ignored by direct delivery'),
      enabled: z.boolean(),
      shop_enabled: z.boolean(),
      buy_limit: z.object({
        count: z.number().int().nonnegative().describe('0 = unlimited'),
        window_minutes: z.number().int().nonnegative(),
      }),
      image_url: z.string().describe('Relative path'),
      created_at: sqlDateTime,
      updated_at: sqlDateTime,
    })

    .meta({ id: 'Pack' }),
);

export const PackDelivery = lazySchema(() =>
  z
    .object({
      id: z.number().int(),
      pack: PackRef(),
      player: Identity.describe('social_id is the current link, whatever it was at delivery'),
      quantity: z.number().int(),
      total_price: z.number().int(),
      status: z.enum(DELIVERY_STATUSES),
      source: z.string().describe('api, claim, admin, shop, and others'),
      error_message: z.string().nullable(),
      delivered_at: sqlDateTime,
    })

    .meta({ id: 'PackDelivery' }),
);

export const DeliveryResult = lazySchema(() =>
  z
    .object({
      pack: PackRef(),
      player: Identity,
      quantity: z.number().int(),
      delivered: z
        .boolean()
        .describe('True when anything reached the player (completed, partial, ledger_failed)'),
      status: z.enum(DELIVERY_STATUSES),
      purchase_id: z.number().int().describe('The id of the record in the delivery history'),
      error_message: z.string().nullable(),
    })

    .meta({ id: 'PackDeliveryResult' }),
);

export const ClaimCode = lazySchema(() =>
  z
    .object({
      code: z.string(),
      pack: PackRef(),
      target: Identity.nullable().describe('Null for a public, untargeted code'),
      source: z.enum(CLAIM_SOURCES),
      status: z.enum(CLAIM_STATUSES),
      max_uses: z.number().int(),
      uses_remaining: z.number().int(),
      created_at: sqlDateTime,
      expires_at: sqlDateTime.nullable().describe('Null = never expires'),
      delivery_status: z.enum(CLAIM_DELIVERY_STATUSES),
      dm: z
        .object({ channel_id: z.string(), message_id: z.string() })

        .nullable()
        .describe('The direct message that carried the code; null unless one was sent'),
    })

    .meta({ id: 'ClaimCode' }),
);

export const MintedClaimCode = lazySchema(() =>
  z
    .object({
      code: z.string(),
      pack: PackRef(),
      target: Identity.nullable().describe('Null for a public code (no platform_id sent)'),
      max_uses: z.number().int(),
      expires_at: sqlDateTime.nullable(),
      dm_status: z.enum(DM_STATUSES),
    })

    .meta({ id: 'MintedClaimCode' }),
);

export const RevokedClaimCode = lazySchema(() =>
  z
    .object({ code: z.string(), revoked: z.literal(true) })

    .meta({ id: 'RevokedClaimCode' }),
);

/**
 * Limits of the mint (docs/packs.md#minting). `max_uses` is "integer >= 1": MAX_USES is not a product
 * cap but the largest count the game can store, a 32-bit integer like the amounts (docs/packs.md).
 */
export const MAX_USES = 0x7fff_ffff;
export const MAX_EXPIRY_DAYS = 3_650;
export const MAX_QUANTITY = 100;

export const packsList = read(
  'packs.list',
  () =>
    z.object({
      enabled: z.boolean().optional(),
      category_id: packId.optional(),
      search: z.string().optional(),
      ...pageArgs,
    }),
  () => opPage(Pack(), true),
);
export const packsGet = read('packs.get', () => z.object({ id: packId }), Pack);
export const packsDeliver = write(
  'packs.deliver',
  () =>
    z
      .object({
        pack_id: packId,
        player: PlayerRef,
        quantity: z.number().int().min(1).max(MAX_QUANTITY),
        actor: WriteActor,
      })
      .describe(
        'A free grant of quantity times the pack. The outcome is a result, not an op error: status completed, partial, failed, refund_failed or ledger_failed, delivered true exactly for completed, partial and ledger_failed; an unknown platform id is status failed (PROTOCOL §6.6).',
      ),
  DeliveryResult,
);
export const packsDeliveries = read(
  'packs.deliveries',
  () =>
    z.object({
      platform_id: platformId.optional(),
      social_id: socialId.optional(),
      pack_id: packId.optional(),
      source: z.string().optional(),
      status: z.enum(DELIVERY_STATUSES).optional(),
      ...pageArgs,
    }),
  () => opPage(PackDelivery(), true),
);
export const claimCodesMint = write(
  'claim_codes.mint',
  () =>
    z
      .object({
        pack_id: packId,
        platform_id: platformId.nullable().describe('The only player who may redeem; null for a public code'),
        max_uses: z.number().int().min(1).max(MAX_USES),
        expiry_days: z.number().int().min(0).max(MAX_EXPIRY_DAYS).describe('0 = never expires'),
        actor: WriteActor,
      })
      .describe(
        'A new code, status active, listed by claim_codes.list at once; an unknown pack is not_found, a disabled one may be minted for (PROTOCOL §6.6).',
      ),
  MintedClaimCode,
);
export const claimCodesList = read(
  'claim_codes.list',
  () =>
    z.object({
      pack_id: packId.optional(),
      source: z.enum(CLAIM_SOURCES).optional(),
      status: z.enum(CLAIM_STATUSES).optional(),
      target: z
        .string()
        .regex(/^[0-9]{1,17}$/)
        .optional()
        .describe("Digits found anywhere in the target's platform id"),
      ...pageArgs,
    }),
  () => opPage(ClaimCode(), true),
);
export const claimCodesRevoke = write(
  'claim_codes.revoke',
  () => z.object({ code: z.string().min(1).max(64), actor: WriteActor }),
  RevokedClaimCode,
);

export const PACK_OPS = {
  [packsList.name]: packsList,
  [packsGet.name]: packsGet,
  [packsDeliver.name]: packsDeliver,
  [packsDeliveries.name]: packsDeliveries,
  [claimCodesMint.name]: claimCodesMint,
  [claimCodesList.name]: claimCodesList,
  [claimCodesRevoke.name]: claimCodesRevoke,
} as const;
