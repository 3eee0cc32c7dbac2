import { describe, expect, it } from 'vitest';
import type { InventoryItem } from '../../../mod-sim/world/index.ts';
import { INVENTORY_DEPTH_CAP, countItems } from '../../../mod-sim/world/index.ts';
import { sharedWorld } from './fixture.ts';

interface Visit {
  item: InventoryItem;
  depth: number;
}

function visit(items: readonly InventoryItem[], depth = 1, out: Visit[] = []): Visit[] {
  for (const item of items) {
    out.push({ item, depth });
    visit(item.contents, depth + 1, out);
  }
  return out;
}

describe('inventories', () => {
  const world = sharedWorld();
  const players = world.players.list.values();
  const all = [
    ...players.map((p) => world.players.inventory(p)),
    ...world.assets.vehicles.values().map((v) => world.assets.vehicleInventory(v)),
    ...world.assets.containers.values().map((c) => world.assets.containerInventory(c)),
  ].flatMap((items) => visit(items));

  it('cuts some subtrees at the depth cap and marks them contents_truncated', () => {
    const truncated = all.filter((v) => v.item.contents_truncated);
    expect(truncated.length).toBeGreaterThan(10);
    for (const { item, depth } of truncated) {
      expect(depth).toBe(INVENTORY_DEPTH_CAP);
      expect(item.is_container).toBe(true);
      expect(item.contents).toEqual([]);
    }
  });

  it('never nests deeper than the cap, and only containers hold items', () => {
    for (const { item, depth } of all) {
      expect(depth).toBeLessThanOrEqual(INVENTORY_DEPTH_CAP);
      if (item.contents.length > 0) expect(item.is_container).toBe(true);
      if (item.is_weapon) expect(item.is_container).toBe(false);
    }
    expect(all.some((v) => v.depth === INVENTORY_DEPTH_CAP)).toBe(true);
  });

  it('keeps item health within 0 and max_health', () => {
    for (const { item } of all) {
      expect(item.health).toBeGreaterThanOrEqual(0);
      expect(item.health).toBeLessThanOrEqual(item.max_health);
    }
  });

  it('gives every player an inventory and reports asset item counts that match', () => {
    for (const player of players) expect(world.players.inventory(player).length).toBeGreaterThan(0);
    const assets = [
      ...world.assets.vehicles.values().map((a) => [a.item_count, world.assets.vehicleInventory(a)] as const),
      ...world.assets.containers
        .values()
        .map((a) => [a.item_count, world.assets.containerInventory(a)] as const),
    ];
    for (const [count, items] of assets) if (count !== null) expect(countItems(items)).toBe(count);
    expect(assets.some(([count]) => count === null)).toBe(true);
    expect(assets.some(([count]) => count !== null && count > 0)).toBe(true);
  });

  it('returns the same tree on every read, so later changes stick', () => {
    const player = players[0]!;
    expect(world.players.inventory(player)).toBe(world.players.inventory(player));
  });
});
