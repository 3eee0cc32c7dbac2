/**
 * A player redeeming a claim code in game (a chat command; the API has no endpoint for it). The
 * delivery is recorded with source `claim`, and the cash or gold it moves with ledger source
 * `claim`. docs/packs.md lists the rules; a refusal writes nothing and uses nothing up.
 *
 * 1. The code exists (any case) and is `active` as of now (expiry is applied first).
 * 2. A targeted code is redeemed only by its target; a public code once per player.
 * 3. The player is connected (they type the command in game).
 * 4. The code's pack still exists and is enabled.
 *
 * Then one unit is delivered (whatever its status, it uses one use), and the last use moves the
 * code to `exhausted`.
 */
import type { World } from '../world/index.ts';
import { sqlDateTime } from '../world/index.ts';
import { canonicalCode, settleClaimCode } from './claim-codes.ts';
import { type GameFaults, NO_FAULTS, deliverPack } from './packs-deliver.ts';
import { type GameOutcome, refused } from './packs-game.ts';
import { nowOf } from './players-common.ts';

export function redeemClaimCode(
  world: World,
  text: string,
  platformId: string,
  faults: GameFaults = NO_FAULTS,
): GameOutcome {
  const shop = world.shop;
  const found = shop.claimCode(canonicalCode(text));
  if (found === undefined) return refused(`Unknown claim code ${text}`);
  const code = settleClaimCode(found, sqlDateTime(nowOf(world)));
  if (code.status !== 'active') return refused(`Claim code ${code.code} is ${code.status}`);
  if (code.target !== null && code.target.platform_id !== platformId) {
    return refused(`Claim code ${code.code} belongs to another player`);
  }
  const redeemers = shop.redeemers.get(code.code) ?? new Set<string>();
  if (code.target === null && redeemers.has(platformId)) {
    return refused(`You have already redeemed claim code ${code.code}`);
  }
  const player = world.players.byPlatformId(platformId);
  if (player === undefined || !player.online) return refused('Only a connected player can redeem a code');
  const pack = shop.pack(code.pack.id);
  if (pack === undefined || !pack.enabled)
    return refused(`The pack of claim code ${code.code} is not available`);
  const delivery = deliverPack(
    world,
    { pack, player, platformId, quantity: 1, source: 'claim', unitPrice: 0, actor: player.refs.identity },
    faults,
  );
  redeemers.add(platformId);
  shop.redeemers.set(code.code, redeemers);
  code.uses_remaining -= 1;
  if (code.uses_remaining === 0) code.status = 'exhausted';
  world.events.emit('claim_code.redeemed', {
    code: code.code,
    pack: code.pack,
    player: player.refs.identity,
    uses_remaining: code.uses_remaining,
    status: code.status,
    delivery,
  });
  return { ok: true, delivery };
}
