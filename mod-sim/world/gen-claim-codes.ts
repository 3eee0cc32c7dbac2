/**
 * Claim codes minted over the last six months. Status follows the code's own facts: revoked
 * first, then exhausted (no uses left), then expired (expires_at passed), else active.
 *
 * delivery_status: `unknown` on mods older than 2.0.47, for partner codes (another path) and for
 * public codes (no recipient); otherwise `target_not_linked` when the recipient has no social
 * link, else mostly `sent` (with the DM's ids), sometimes `failed`, and `pending` when minted in
 * the last hour. `dm` is null unless a message was sent (our decision).
 */
import type { FeatureSet } from '../mod-version.ts';
import type { ClaimCode, ClaimDeliveryStatus, ClaimSource, ClaimStatus, Pack } from './economy-types.ts';
import { newClaimCode, newSnowflake } from './ids.ts';
import { weightTable } from './rng.ts';
import type { Rng } from './rng.ts';
import { DAY, HOUR, MINUTE, sqlDateTime } from './time.ts';
import type { PlayerIdentity, PackRef, Player } from './types.ts';

export interface ClaimGenInput {
  count: number;
  players: readonly Player[];
  packs: readonly Pack[];
  refs: ReadonlyMap<number, PackRef>;
  now: number;
}

interface Facts {
  source: ClaimSource;
  target: Player | null;
  createdAt: number;
  expiresAt: number | null;
  maxUses: number;
  used: number;
  revoked: boolean;
}

const SOURCES = weightTable<ClaimSource>([
  ['panel', 50],
  ['social', 30],
  ['partner', 20],
]);

function drawFacts(rng: Rng, players: readonly Player[], now: number): Facts {
  const source = rng.weighted(SOURCES);
  const targeted = source !== 'partner' && players.length > 0 && rng.chance(source === 'social' ? 0.9 : 0.6);
  const createdAt = now - rng.int(1, 180 * 24 * 60) * MINUTE;
  const maxUses = targeted ? 1 : rng.pick([1, 5, 10, 25, 100]);
  return {
    source,
    target: targeted ? rng.pick(players) : null,
    createdAt,
    expiresAt: rng.chance(0.4) ? null : createdAt + rng.int(1, 90) * DAY,
    maxUses,
    used: rng.chance(0.5) ? 0 : rng.int(0, maxUses),
    revoked: rng.chance(0.05),
  };
}

function statusOf(facts: Facts, now: number): ClaimStatus {
  if (facts.revoked) return 'revoked';
  if (facts.used >= facts.maxUses) return 'exhausted';
  if (facts.expiresAt !== null && facts.expiresAt <= now) return 'expired';
  return 'active';
}

function deliveryOf(rng: Rng, facts: Facts, now: number, features: FeatureSet): ClaimDeliveryStatus {
  if (!features.claimCodeDmQueue || facts.source === 'partner' || facts.target === null) return 'unknown';
  if (facts.target.social_id === null) return 'target_not_linked';
  if (now - facts.createdAt < HOUR) return 'pending';
  return rng.chance(0.94) ? 'sent' : 'failed';
}

function buildCode(rng: Rng, input: ClaimGenInput, codes: Set<string>, features: FeatureSet): ClaimCode {
  const facts = drawFacts(rng, input.players, input.now);
  const pack = rng.pick(input.packs);
  const delivery = deliveryOf(rng, facts, input.now, features);
  const target: PlayerIdentity | null = facts.target?.refs.identity ?? null;
  return {
    code: newClaimCode(rng, codes),
    pack: input.refs.get(pack.id) as PackRef,
    target,
    source: facts.source,
    status: statusOf(facts, input.now),
    max_uses: facts.maxUses,
    uses_remaining: Math.max(0, facts.maxUses - facts.used),
    created_at: sqlDateTime(facts.createdAt),
    expires_at: facts.expiresAt === null ? null : sqlDateTime(facts.expiresAt),
    delivery_status: delivery,
    dm: delivery === 'sent' ? { channel_id: newSnowflake(rng), message_id: newSnowflake(rng) } : null,
  };
}

/** `count` codes for live packs; none when the catalogue is empty. */
export function generateClaimCodes(rng: Rng, input: ClaimGenInput, features: FeatureSet): ClaimCode[] {
  if (input.packs.length === 0) return [];
  const codes = new Set<string>();
  return Array.from({ length: input.count }, () => buildCode(rng, input, codes, features));
}
