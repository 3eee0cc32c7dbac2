/**
 * Packs, pack deliveries, claim codes and the economy ledger (spec "Pack (catalog record)",
 * "Pack delivery record", "Claim code", "Economy ledger entry").
 */
import { LEDGER_ASSETS, LEDGER_MODES, LEDGER_SCOPES, LEDGER_SOURCES } from '../../protocol/ops/economy.ts';
import {
  CLAIM_DELIVERY_STATUSES,
  CLAIM_SOURCES,
  CLAIM_STATUSES,
  DELIVERY_STATUSES,
} from '../../protocol/ops/packs.ts';
import type { PlayerIdentity, PackRef } from './types.ts';

// The wire vocabulary is the op catalogue's (protocol/ops); the world re-exports it.
export {
  CLAIM_DELIVERY_STATUSES,
  CLAIM_SOURCES,
  CLAIM_STATUSES,
  DELIVERY_STATUSES,
  LEDGER_ASSETS,
  LEDGER_MODES,
  LEDGER_SCOPES,
  LEDGER_SOURCES,
};

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

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_SOURCES = ['api', 'claim', 'admin', 'shop'] as const;
export type DeliverySource = (typeof DELIVERY_SOURCES)[number];

export interface PackDelivery {
  id: number;
  pack: PackRef;
  /** The player's shared identity: social_id is the current link. */
  player: PlayerIdentity;
  quantity: number;
  total_price: number;
  status: DeliveryStatus;
  source: DeliverySource;
  error_message: string | null;
  delivered_at: string;
}

export type ClaimSource = (typeof CLAIM_SOURCES)[number];

export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

export type ClaimDeliveryStatus = (typeof CLAIM_DELIVERY_STATUSES)[number];

export interface ClaimCode {
  code: string;
  pack: PackRef;
  /** Null for a public, untargeted code. */
  target: PlayerIdentity | null;
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

export type LedgerAsset = (typeof LEDGER_ASSETS)[number];

export type LedgerMode = (typeof LEDGER_MODES)[number];

export type LedgerScope = (typeof LEDGER_SCOPES)[number];

export type LedgerSource = (typeof LEDGER_SOURCES)[number];

export interface LedgerEntry {
  /** Decimal string, increasing with time. */
  id: string;
  at: string;
  /** Null on a bulk entry. */
  player: PlayerIdentity | null;
  /** Null when automatic (kill reward, scheduled charge, leaderboard payout). */
  actor: PlayerIdentity | null;
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
