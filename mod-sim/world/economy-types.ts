/**
 * Packs, pack deliveries, claim codes and the economy ledger (spec "Pack (catalog record)",
 * "Pack delivery record", "Claim code", "Economy ledger entry").
 */
import type { Identity, PackRef } from './types.ts';

export interface PackCategory {
  id: number;
  name: string;
}

export interface Pack {
  id: number;
  /** Catalog slug. */
  name: string;
  display_name: string;
  description: string;
  category: PackCategory;
  /** Coin cost in the shop; direct delivery ignores it. */
  price: number;
  enabled: boolean;
  shop_enabled: boolean;
  /** count 0 = unlimited (window_minutes is then 0 too). */
  buy_limit: { count: number; window_minutes: number };
  /** Relative path. */
  image_url: string;
  created_at: string;
  updated_at: string;
}

export const DELIVERY_STATUSES = [
  'completed',
  'partial',
  'failed',
  'refund_failed',
  'ledger_failed',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_SOURCES = ['api', 'claim', 'admin', 'shop'] as const;
export type DeliverySource = (typeof DELIVERY_SOURCES)[number];

export interface PackDelivery {
  id: number;
  pack: PackRef;
  /** The player's shared identity: social_id is the current link. */
  player: Identity;
  quantity: number;
  total_price: number;
  status: DeliveryStatus;
  source: DeliverySource;
  error_message: string | null;
  delivered_at: string;
}

export const CLAIM_SOURCES = ['partner', 'social', 'panel'] as const;
export type ClaimSource = (typeof CLAIM_SOURCES)[number];

export const CLAIM_STATUSES = ['active', 'expired', 'exhausted', 'revoked'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

export const CLAIM_DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'target_not_linked', 'unknown'] as const;
export type ClaimDeliveryStatus = (typeof CLAIM_DELIVERY_STATUSES)[number];

export interface ClaimCode {
  code: string;
  pack: PackRef;
  /** Null for a public, untargeted code. */
  target: Identity | null;
  source: ClaimSource;
  status: ClaimStatus;
  max_uses: number;
  uses_remaining: number;
  created_at: string;
  /** Null = never expires. */
  expires_at: string | null;
  delivery_status: ClaimDeliveryStatus;
  /** The direct message carrying the code; null unless one was sent (our decision). */
  dm: { channel_id: string; message_id: string } | null;
}

export const LEDGER_ASSETS = ['cash', 'gold', 'coins'] as const;
export type LedgerAsset = (typeof LEDGER_ASSETS)[number];

export const LEDGER_MODES = ['delta', 'set'] as const;
export type LedgerMode = (typeof LEDGER_MODES)[number];

export const LEDGER_SCOPES = ['player', 'all', 'online'] as const;
export type LedgerScope = (typeof LEDGER_SCOPES)[number];

export const LEDGER_SOURCES = [
  'api',
  'panel',
  'social_bank',
  'social_cmd',
  'pack',
  'claim',
  'task',
  'leaderboard',
  'system',
] as const;
export type LedgerSource = (typeof LEDGER_SOURCES)[number];

export interface LedgerEntry {
  /** Decimal string, increasing with time. */
  id: string;
  at: string;
  /** Null on a bulk entry. */
  player: Identity | null;
  /** Null when automatic (kill reward, scheduled charge, leaderboard payout). */
  actor: Identity | null;
  asset: LedgerAsset;
  mode: LedgerMode;
  amount: number;
  /** Null on bulk entries and when the player left before the balance was read back. */
  balance_before: number | null;
  balance_after: number | null;
  scope: LedgerScope;
  /** Players reached by a bulk coin change; null otherwise (bulk cash/gold cannot count). */
  affected_count: number | null;
  source: LedgerSource;
  reason: string;
  pack_name: string | null;
}
