/**
 * Bases, vehicles and containers, in proportion to the players: most squad leaders and some other
 * players hold a flag (a base); about 0.65 vehicles and 1.2 containers per player. Containers sit
 * in their owner's base or, outside any base, mostly buried. Returned in generation order, which
 * is each asset's ordinal (the seed of its inventory) and is grouped by owner in ascending profile
 * id, which the asset store's owner index relies on.
 */
import type { Base, Container, LockType, Vehicle } from './asset-types.ts';
import { newEntityId } from './ids.ts';
import { inventorySize } from './inventory.ts';
import { weightTable } from './rng.ts';
import type { Rng } from './rng.ts';
import { DAY, MINUTE, isoDateTime } from './time.ts';
import type { Player } from './types.ts';
import type { AssetKind } from './vocab/items.ts';
import { CONTAINER_KINDS, CONTAINER_LABELS, VEHICLE_KINDS } from './vocab/items.ts';
import { randomPosition } from './gen-players.ts';

export interface GeneratedAssets {
  bases: Base[];
  vehicles: Vehicle[];
  containers: Container[];
}

interface AssetContext {
  rng: Rng;
  seed: number;
  now: number;
  entityIds: Set<string>;
  out: GeneratedAssets;
}

const LOCK_HP: Record<LockType, number> = { improvised: 100, basic: 300, advanced: 1000 };
const LOCK_TYPES = weightTable<LockType>([
  ['improvised', 3],
  ['basic', 4],
  ['advanced', 2],
]);
const VEHICLES_PER_PLAYER = weightTable([
  [0, 55],
  [1, 30],
  [2, 10],
  [3, 5],
]);
const BURIED_STASH = CONTAINER_KINDS.find((k) => k.className === 'BP_Stash_Buried') as AssetKind;
const BASE_SUFFIXES = ['Outpost', 'Camp', 'Fort', 'Hideout', 'Bunker', 'Farm', 'Compound'];

/** Lock fields shared by vehicles and containers. */
function lockFields(rng: Rng): { is_locked: boolean; lock_type: LockType | null; lock_hp: number } {
  if (!rng.chance(0.65)) return { is_locked: false, lock_type: null, lock_hp: 0 };
  const lockType = rng.weighted(LOCK_TYPES);
  return { is_locked: rng.chance(0.9), lock_type: lockType, lock_hp: rng.real(1, LOCK_HP[lockType], 1) };
}

function lastAccess(rng: Rng, now: number): string | null {
  return rng.chance(0.1) ? null : isoDateTime(now - rng.int(0, (60 * DAY) / MINUTE) * MINUTE);
}

function itemCount(
  ctx: AssetContext,
  kind: 'vehicle' | 'container',
  asset: AssetKind,
  ordinal: number,
): number | null {
  const size = inventorySize(ctx.seed, kind, ordinal, [asset.minItems, asset.maxItems]);
  return ctx.rng.chance(0.08) ? null : size;
}

function addBase(ctx: AssetContext, owner: Player, nextFlag: number): Base {
  const { rng } = ctx;
  const maxElements = rng.pick([400, 600, 800, 1200]);
  const base: Base = {
    flag_id: nextFlag,
    base_id: 50_000 + ctx.out.bases.length * 7 + rng.int(1, 6),
    owner: owner.refs.owner,
    max_elements: maxElements,
    element_count: rng.skewed(1, maxElements, 2),
    avg_health: rng.real(0.05, 1, 3),
    position: randomPosition(rng),
  };
  ctx.out.bases.push(base);
  return base;
}

// The records below are single literals with every field (no spread), so that all vehicles (and
// all containers) share one hidden class with in-object fields: it halves their memory at scale.

function addVehicle(ctx: AssetContext, owner: Player): void {
  const { rng } = ctx;
  const kind = rng.pick(VEHICLE_KINDS);
  const lock = lockFields(rng);
  ctx.out.vehicles.push({
    entity_id: newEntityId(rng, ctx.entityIds),
    class_name: kind.className,
    display_name: kind.displayName,
    owner: owner.refs.owner,
    health: rng.real(kind.maxHealth * 0.05, kind.maxHealth, 1),
    max_health: kind.maxHealth,
    position: randomPosition(rng),
    is_locked: lock.is_locked,
    lock_type: lock.lock_type,
    lock_hp: lock.lock_hp,
    is_functional: rng.chance(0.85),
    last_access_time: lastAccess(rng, ctx.now),
    item_count: itemCount(ctx, 'vehicle', kind, ctx.out.vehicles.length),
  });
}

function addContainer(ctx: AssetContext, owner: Player, base: { id: number; name: string } | null): void {
  const { rng } = ctx;
  const buried = base === null && rng.chance(0.7);
  const kind = buried ? BURIED_STASH : rng.pick(CONTAINER_KINDS);
  const lock = lockFields(rng);
  ctx.out.containers.push({
    entity_id: newEntityId(rng, ctx.entityIds),
    class_name: kind.className,
    display_name: kind.displayName,
    custom_name: rng.chance(0.3) ? rng.pick(CONTAINER_LABELS) : '',
    owner: owner.refs.owner,
    base_id: base?.id ?? null,
    base_name: base?.name ?? null,
    position: randomPosition(rng),
    is_locked: lock.is_locked,
    lock_type: lock.lock_type,
    lock_hp: lock.lock_hp,
    is_buried: buried,
    last_access_time: lastAccess(rng, ctx.now),
    item_count: itemCount(ctx, 'container', kind, ctx.out.containers.length),
  });
}

function baseChance(player: Player): number {
  if (player.squad === null) return 0.15;
  return player.squad.rank === 4 ? 0.85 : 0.1;
}

/** Generates every asset of every player, in player ordinal order. */
export function generateAssets(
  rng: Rng,
  seed: number,
  players: readonly Player[],
  now: number,
): GeneratedAssets {
  const ctx: AssetContext = {
    rng,
    seed,
    now,
    entityIds: new Set(),
    out: { bases: [], vehicles: [], containers: [] },
  };
  let nextFlag = 1_000;
  for (const player of players) {
    if (rng.chance(baseChance(player))) {
      nextFlag += rng.int(1, 9);
      const base = addBase(ctx, player, nextFlag);
      const named = {
        id: base.base_id,
        name: `${player.char_name.split(' ')[1] ?? 'North'} ${rng.pick(BASE_SUFFIXES)}`,
      };
      for (let n = rng.int(1, 8); n > 0; n--) addContainer(ctx, player, named);
    }
    const vehicles = rng.weighted(VEHICLES_PER_PLAYER);
    for (let n = 0; n < vehicles; n++) addVehicle(ctx, player);
    if (rng.chance(0.3)) addContainer(ctx, player, null);
  }
  return ctx.out;
}

/** Where an asset kind's inventory size range lives, by class name. */
export const VEHICLE_KIND_BY_CLASS = new Map(VEHICLE_KINDS.map((kind) => [kind.className, kind]));
export const CONTAINER_KIND_BY_CLASS = new Map(CONTAINER_KINDS.map((kind) => [kind.className, kind]));
