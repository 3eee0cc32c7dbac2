/**
 * Deliveries that start inside the game rather than from the API: a player buying a pack in the
 * shop (source `shop`) and an admin giving one from the panel (source `admin`). The API has no
 * endpoint for either; tests and mod authors call these on a simulator's world
 * (`sim.world`), and the records they write show in `GET /v1/packs/deliveries`. Claim-code
 * redemptions are in claim-codes-redeem.ts.
 *
 * A refusal (unknown pack, player offline, not enough coins, buy limit reached) writes nothing
 * and answers `{ok: false, reason}` with the game's sentence.
 */
import type { PlayerIdentity, Pack, PackDelivery, World } from '../world/index.ts';
import { MINUTE, sqlDateTime } from '../world/index.ts';
import { DELIVERED_STATUSES, type GameFaults, NO_FAULTS, deliverPack } from './packs-deliver.ts';
import { nowOf } from './players-common.ts';

export type GameOutcome = { ok: true; delivery: PackDelivery } | { ok: false; reason: string };

export function refused(reason: string): GameOutcome {
  return { ok: false, reason };
}

/**
 * Units of `pack` the player bought in the shop within the buy-limit window ending now; only
 * purchases that reached the player count. Scans the history newest first until the window.
 */
export function unitsBoughtRecently(world: World, pack: Pack, platformId: string): number {
  const since = sqlDateTime(nowOf(world) - pack.buy_limit.window_minutes * MINUTE);
  let units = 0;
  for (const delivery of world.shop.deliveries) {
    if (delivery.delivered_at < since) break;
    if (delivery.source !== 'shop' || delivery.pack.id !== pack.id) continue;
    if (delivery.player.platform_id !== platformId || !DELIVERED_STATUSES.has(delivery.status)) continue;
    units += delivery.quantity;
  }
  return units;
}

/**
 * A shop purchase: the pack must be enabled and in the shop, the player connected with enough
 * coins, and the purchase within the pack's buy limit (`count` units per `window_minutes`; 0 =
 * unlimited). Charges `price × quantity` coins (ledger source `pack`), refunded when nothing
 * lands.
 */
export function purchasePack(
  world: World,
  packId: number,
  platformId: string,
  quantity = 1,
  faults: GameFaults = NO_FAULTS,
): GameOutcome {
  const pack = world.shop.pack(packId);
  if (pack === undefined || !pack.enabled || !pack.shop_enabled) return refused('This pack is not for sale');
  const player = world.players.byPlatformId(platformId);
  if (player === undefined || !player.online) return refused('Only a connected player can buy');
  const cost = pack.price * quantity;
  if (player.coins < cost) return refused(`Not enough coins: ${cost} needed, ${player.coins} held`);
  const limit = pack.buy_limit;
  if (limit.count > 0 && unitsBoughtRecently(world, pack, platformId) + quantity > limit.count) {
    return refused(`Buy limit reached: ${limit.count} per ${limit.window_minutes} minutes`);
  }
  const delivery = deliverPack(
    world,
    {
      pack,
      player,
      platformId,
      quantity,
      source: 'shop',
      unitPrice: pack.price,
      actor: player.refs.identity,
    },
    faults,
  );
  return { ok: true, delivery };
}

/**
 * An admin give from the panel: free, on every mod version, to any pack that exists (enabled or
 * not) and any well-formed platform id (a never-seen one fails, as an API grant does).
 */
export function adminGivePack(
  world: World,
  packId: number,
  platformId: string,
  options: { quantity?: number; admin?: PlayerIdentity | null; faults?: GameFaults } = {},
): GameOutcome {
  const pack = world.shop.pack(packId);
  if (pack === undefined) return refused(`No pack with id ${packId}`);
  const delivery = deliverPack(
    world,
    {
      pack,
      player: world.players.byPlatformId(platformId),
      platformId,
      quantity: options.quantity ?? 1,
      source: 'admin',
      unitPrice: 0,
      actor: options.admin ?? null,
    },
    options.faults ?? NO_FAULTS,
  );
  return { ok: true, delivery };
}
