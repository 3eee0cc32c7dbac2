/**
 * Inventory trees (spec "InventoryItem"), derived lazily per owner from the owner's ordinal.
 *
 * The size of a tree is its first draw, so an asset's item_count can be computed eagerly at
 * generation without building the tree. A tree holds exactly that many items at all depths.
 * Like the real mod, expansion stops at `INVENTORY_DEPTH_CAP`: a container at that depth is
 * returned with empty contents, and `contents_truncated: true` when it held anything.
 *
 * Item ids are unique across the world: (owner space + ordinal) × 1024 + position, so an
 * inventory holds at most 1,023 items.
 */
import { STREAM, deriveRng } from './rng.ts';
import type { Rng } from './rng.ts';
import type { InventoryItem } from './types.ts';
import type { ItemKind } from './vocab/items.ts';
import { CONTAINER_ITEM_KINDS, LOOSE_ITEM_KINDS, WEAPON_KINDS } from './vocab/items.ts';

/** Depth of the deepest expanded container; top-level items are at depth 1. */
export const INVENTORY_DEPTH_CAP = 4;

export type InventoryOwnerKind = 'player' | 'vehicle' | 'container';

const OWNER_SPACE: Record<InventoryOwnerKind, { stream: number; idSpace: number; min: number; max: number }> =
  {
    player: { stream: STREAM.playerInventory, idSpace: 0, min: 6, max: 40 },
    vehicle: { stream: STREAM.vehicleInventory, idSpace: 1 << 22, min: 0, max: 30 },
    container: { stream: STREAM.containerInventory, idSpace: 1 << 23, min: 0, max: 60 },
  };

const MAX_ITEMS = 1023;

interface OpenSlot {
  item: InventoryItem;
  depth: number;
  free: number;
}

/** The inventory's random stream; its first draw is the size. */
function inventoryRng(seed: number, kind: InventoryOwnerKind, ordinal: number): Rng {
  return deriveRng(seed, OWNER_SPACE[kind].stream, ordinal);
}

function drawSize(rng: Rng, kind: InventoryOwnerKind, range?: readonly [number, number]): number {
  const [min, max] = range ?? [OWNER_SPACE[kind].min, OWNER_SPACE[kind].max];
  return Math.min(MAX_ITEMS, rng.int(min, max));
}

/** The number of items `deriveInventory` returns for this owner, without building it. */
export function inventorySize(
  seed: number,
  kind: InventoryOwnerKind,
  ordinal: number,
  range?: readonly [number, number],
): number {
  return drawSize(inventoryRng(seed, kind, ordinal), kind, range);
}

function newItem(rng: Rng, kind: ItemKind, id: number): InventoryItem {
  return itemOf(kind, id, rng.real(kind.maxHealth * 0.1, kind.maxHealth, 1));
}

/** A new, empty item of `kind`: the one shape generation and deliveries both make. */
export function itemOf(kind: ItemKind, id: number, health: number = kind.maxHealth): InventoryItem {
  return {
    id,
    class: kind.class,
    name: kind.name,
    icon: `icons/items/${kind.class}.png`,
    health,
    max_health: kind.maxHealth,
    weight: kind.weight,
    is_container: kind.capacity > 0,
    is_weapon: kind.isWeapon,
    contents: [],
    contents_truncated: false,
  };
}

/** Usually nests into one of the most recently opened (deepest) containers. */
function pickParent(rng: Rng, open: OpenSlot[]): OpenSlot | undefined {
  if (open.length === 0 || !rng.chance(0.75)) return undefined;
  return open[open.length - 1 - rng.int(0, Math.min(2, open.length - 1))];
}

/** Containers are common at every level; weapons lie at the top. */
function pickKind(rng: Rng, topLevel: boolean): ItemKind {
  if (rng.chance(topLevel ? 0.45 : 0.3)) return rng.pick(CONTAINER_ITEM_KINDS);
  if (topLevel && rng.chance(0.35)) return rng.pick(WEAPON_KINDS);
  return rng.pick(LOOSE_ITEM_KINDS);
}

/** Places one new item; a container above the depth cap stays open for later items. */
function place(rng: Rng, roots: InventoryItem[], open: OpenSlot[], id: number): void {
  const parent = pickParent(rng, open);
  const depth = parent === undefined ? 1 : parent.depth + 1;
  const kind = pickKind(rng, parent === undefined);
  const item = newItem(rng, kind, id);
  if (item.is_container) {
    if (depth >= INVENTORY_DEPTH_CAP) item.contents_truncated = rng.chance(0.7);
    else open.push({ item, depth, free: kind.capacity });
  }
  if (parent === undefined) {
    roots.push(item);
    return;
  }
  parent.item.contents.push(item);
  parent.free -= 1;
  if (parent.free === 0) open.splice(open.indexOf(parent), 1);
}

/** The owner's inventory tree: exactly `inventorySize(...)` items. */
export function deriveInventory(
  seed: number,
  kind: InventoryOwnerKind,
  ordinal: number,
  range?: readonly [number, number],
): InventoryItem[] {
  const rng = inventoryRng(seed, kind, ordinal);
  const size = drawSize(rng, kind, range);
  const idBase = (OWNER_SPACE[kind].idSpace + ordinal) * 1024;
  const roots: InventoryItem[] = [];
  const open: OpenSlot[] = [];
  for (let position = 1; position <= size; position++) place(rng, roots, open, idBase + position);
  return roots;
}

/**
 * The id for an item added to the owner's tree at run time: one above every id it holds, in the
 * owner's id space (a cleared tree starts over at its first position).
 */
export function nextItemId(
  kind: InventoryOwnerKind,
  ordinal: number,
  items: readonly InventoryItem[],
): number {
  let top = (OWNER_SPACE[kind].idSpace + ordinal) * 1024;
  const visit = (list: readonly InventoryItem[]): void => {
    for (const item of list) {
      top = Math.max(top, item.id);
      visit(item.contents);
    }
  };
  visit(items);
  return top + 1;
}

/** Counts the items of a tree at all depths. */
export function countItems(items: readonly InventoryItem[]): number {
  let total = 0;
  for (const item of items) total += 1 + countItems(item.contents);
  return total;
}
