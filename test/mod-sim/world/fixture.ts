/** Shared helpers for the world tests: a cached default world and a full serialisation. */
import type { World, WorldOptions } from '../../../mod-sim/world/index.ts';
import {
  createWorld,
  moderationState,
  playerProfile,
  squadMembers,
  squadRow,
  squadSummary,
} from '../../../mod-sim/world/index.ts';

const cache = new Map<string, World>();

/** A world per option set, generated once per test file (tests must not mutate it). */
export function sharedWorld(options: WorldOptions = {}): World {
  const key = JSON.stringify(options);
  let world = cache.get(key);
  if (world === undefined) {
    world = createWorld(options);
    cache.set(key, world);
  }
  return world;
}

/** Every entry of the ledger, oldest first. */
export function allLedgerEntries(world: World) {
  return Array.from({ length: world.ledger.length }, (_, seq) => world.ledger.entry(seq));
}

/** Everything the world holds, lazily derived parts included, as one JSON text. */
export function serialiseWorld(world: World): string {
  const players = world.players.list.values().map((player) => ({
    profile: playerProfile(world, player),
    moderation: moderationState(player),
    live: player.live,
    cash_on_hand: player.cash_on_hand,
    inventory: world.players.inventory(player),
    ips: world.players.ipHistory(player),
    violations: world.players.violations(player).values(),
  }));
  const squads = world.squads.values().map((squad) => ({
    row: squadRow(squad),
    members: squadMembers(world, squad),
    summary: squadSummary(world, squad),
  }));
  const vehicles = world.assets.vehicles
    .values()
    .map((v) => ({ v, items: world.assets.vehicleInventory(v) }));
  const containers = world.assets.containers
    .values()
    .map((c) => ({ c, items: world.assets.containerInventory(c) }));
  return JSON.stringify({
    seed: world.seed,
    modVersion: world.modVersion,
    players,
    squads,
    bases: world.assets.bases.values(),
    vehicles,
    containers,
    packs: world.shop.packs.values(),
    deliveries: world.shop.deliveries.values(),
    claimCodes: world.shop.claimCodes.values(),
    ledger: allLedgerEntries(world),
    history: world.commands.history.query(undefined, 1_000_000).items,
    catalog: world.commands.catalog,
  });
}
