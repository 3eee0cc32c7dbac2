import { describe, expect, it } from 'vitest';
import { createWorld, squadRow } from '../../../mod-sim/world/index.ts';

describe('a 100,000-player world', () => {
  it('generates with proportionate squads, assets, shop history, ledger and command history', () => {
    const world = createWorld({ players: 100_000 });
    const players = world.players.list.values();
    expect(world.players.size).toBe(100_000);
    expect(new Set(players.map((p) => p.platform_id)).size).toBe(100_000);
    expect(world.players.onlineCount()).toBeGreaterThan(13_000);
    expect(world.players.onlineCount()).toBeLessThan(17_000);
    expect(world.squads.length).toBeGreaterThan(5_000);
    for (const squad of world.squads.values().slice(0, 500)) {
      const row = squadRow(squad);
      expect(row.member_count).toBeLessThanOrEqual(row.member_limit);
    }
    expect(world.assets.bases.length).toBeGreaterThan(10_000);
    expect(world.assets.vehicles.length).toBeGreaterThan(50_000);
    expect(world.assets.containers.length).toBeGreaterThan(80_000);
    expect(world.shop.deliveries.length).toBeGreaterThan(150_000);
    expect(world.shop.claimCodes.length).toBe(50_000);
    expect(world.ledger.length).toBe(1_500_000);
    expect(world.commands.history.length).toBe(150_000);
    const last = world.players.list.itemAt(99_999);
    expect(world.players.inventory(last).length).toBeGreaterThan(0);
    expect(
      world.ledger.query({ limit: 10, filter: { platform_id: last.platform_id } }).items.length,
    ).toBeGreaterThan(0);
  });
});
