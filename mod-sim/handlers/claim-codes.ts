/**
 * Handlers for the claim-code ops (protocol/ops/packs.ts): mint, list (newest first) and revoke.
 * Redemption by players is in claim-codes-redeem.ts, the direct-message queue in
 * claim-codes-dm.ts.
 *
 * Status moves (docs/packs.md, "Claim code status"): `active` becomes `expired` once the world
 * clock reaches `expires_at`, evaluated whenever a code is read or redeemed (and written back
 * then); `exhausted` when a redemption uses the last use; `revoked` by `claim_codes.revoke`, from
 * any status, and that is final. A revoked code stays revoked; an exhausted code never expires.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpHandlers } from '../../protocol/ops/index.ts';
import type { FaultPlan } from '../faults.ts';
import type { ClaimCode, PlayerIdentity, PackRef, World } from '../world/index.ts';
import { DAY, sqlDateTime } from '../world/index.ts';
import { newClaimCode } from '../world/ids.ts';
import { STREAM, deriveRng } from '../world/rng.ts';
import { type KeyCodec, NUMBER_KEY, allOf, countOf, pageOf } from './assets-paging.ts';
import { requestDm } from './claim-codes-dm.ts';
import { type GameFaults, gameFaults } from './packs-deliver.ts';
import { resolvePack } from './packs.ts';
import { type ArgsOf, nowOf } from './players-common.ts';
import { oncePerOpId } from './players.ts';

export type ClaimCodeOpName = 'claim_codes.mint' | 'claim_codes.list' | 'claim_codes.revoke';
export type ClaimCodeHandlers = Pick<OpHandlers, ClaimCodeOpName>;

/** The source the game records for codes minted through the API (our decision: docs/packs.md). */
export const API_CLAIM_SOURCE = 'panel';

/** Keyset position of the code list: `created_at|code` (shop-store.ts, claimCodeKey). */
const CODE_KEY: KeyCodec<string> = {
  parse: (text) => (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\|[A-Z0-9-]{1,64}$/.test(text) ? text : undefined),
  format: (key) => key,
};

/** Codes are typed by players: the game reads them in any case. */
export function canonicalCode(text: string): string {
  return text.toUpperCase();
}

/** Applies expiry as of `now` (`YYYY-MM-DD HH:MM:SS`) and returns the code. */
export function settleClaimCode(code: ClaimCode, now: string): ClaimCode {
  if (code.status === 'active' && code.expires_at !== null && code.expires_at <= now) code.status = 'expired';
  return code;
}

/** A fresh code, drawn from a stream keyed by how many codes exist (deterministic per world). */
function freshCode(world: World): string {
  const rng = deriveRng(world.seed, STREAM.claimCodes, world.shop.claimCodes.length + 1);
  let code: string;
  do code = newClaimCode(rng, new Set());
  while (world.shop.claimCode(code) !== undefined);
  return code;
}

function mint(world: World, args: ArgsOf<'claim_codes.mint'>, faults: GameFaults) {
  const pack = resolvePack(world, args.pack_id);
  const now = nowOf(world);
  let target: PlayerIdentity | null = null;
  if (args.platform_id !== null) {
    const player = world.players.byPlatformId(args.platform_id);
    target = player?.refs.identity ?? { platform_id: args.platform_id, social_id: null };
  }
  const code: ClaimCode = {
    code: freshCode(world),
    pack: world.shop.packRef(pack.id) as PackRef,
    target,
    source: API_CLAIM_SOURCE,
    status: 'active',
    max_uses: args.max_uses,
    uses_remaining: args.max_uses,
    created_at: sqlDateTime(now),
    expires_at: args.expiry_days === 0 ? null : sqlDateTime(now + args.expiry_days * DAY),
    delivery_status: 'unknown',
    dm: null,
  };
  const dmStatus = requestDm(world, code, faults);
  world.shop.addClaimCode(code);
  return {
    code: code.code,
    pack: { ...code.pack },
    target: target === null ? null : { ...target },
    max_uses: code.max_uses,
    expires_at: code.expires_at,
    dm_status: dmStatus,
  };
}

function list(world: World, args: ArgsOf<'claim_codes.list'>) {
  const now = sqlDateTime(nowOf(world));
  const packKey = args.pack_id === undefined ? undefined : NUMBER_KEY.parse(args.pack_id);
  const digits = args.target;
  const filter = allOf<ClaimCode>(
    args.pack_id !== undefined && ((c) => c.pack.id === packKey),
    args.source !== undefined && ((c) => c.source === args.source),
    args.status !== undefined && ((c) => settleClaimCode(c, now).status === args.status),
    digits !== undefined && ((c) => c.target !== null && c.target.platform_id.includes(digits)),
  );
  const codes = world.shop.claimCodes;
  const page = pageOf(codes, args, CODE_KEY, (c) => settleClaimCode(c, now), filter);
  return { ...page, total: countOf(codes, filter) };
}

function revoke(world: World, args: ArgsOf<'claim_codes.revoke'>) {
  const code = world.shop.claimCode(canonicalCode(args.code));
  if (code === undefined) throw new OpError('not_found', `No claim code ${args.code}.`);
  code.status = 'revoked';
  return { code: code.code, revoked: true as const };
}

export interface ClaimCodeHandlerOptions {
  /** A rule naming `claim_codes.dm` makes the direct-message queue refuse a mint's message. */
  faults?: FaultPlan;
}

export function claimCodeHandlers(world: World, options: ClaimCodeHandlerOptions = {}): ClaimCodeHandlers {
  const faults = gameFaults(options.faults);
  return {
    'claim_codes.mint': oncePerOpId(world, 'claim_codes.mint', (args) => mint(world, args, faults)),
    'claim_codes.list': (args) => list(world, args),
    'claim_codes.revoke': oncePerOpId(world, 'claim_codes.revoke', (args) => revoke(world, args)),
  };
}
