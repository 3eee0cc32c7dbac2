import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWorld } from '../../../mod-sim/world/index.ts';
import { serialiseWorld } from './fixture.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createWorld', () => {
  it('generates a byte-identical world from the same seed and options', () => {
    const a = serialiseWorld(createWorld({ seed: 42, players: 150 }));
    const b = serialiseWorld(createWorld({ seed: 42, players: 150 }));
    expect(a).toBe(b);
  });

  it('generates a different world from a different seed', () => {
    const a = createWorld({ seed: 1, players: 50 });
    const b = createWorld({ seed: 2, players: 50 });
    expect(serialiseWorld(a)).not.toBe(serialiseWorld(b));
    expect(a.players.list.values().map((p) => p.platform_id)).not.toEqual(
      b.players.list.values().map((p) => p.platform_id),
    );
  });

  it('derives lazy parts identically whatever order they are first read in', () => {
    const forward = createWorld({ seed: 7, players: 60 });
    const backward = createWorld({ seed: 7, players: 60 });
    const players = backward.players.list.values();
    for (let i = players.length - 1; i >= 0; i--) {
      const player = players[i]!;
      backward.players.inventory(player);
      backward.players.details(player);
      backward.players.ipHistory(player);
    }
    for (const v of [...backward.assets.vehicles].reverse()) backward.assets.vehicleInventory(v);
    expect(serialiseWorld(forward)).toBe(serialiseWorld(backward));
  });

  it('reads neither the wall clock nor Math.random', () => {
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random called');
    });
    vi.spyOn(Date, 'now').mockImplementation(() => {
      throw new Error('Date.now called');
    });
    expect(() => serialiseWorld(createWorld({ players: 40 }))).not.toThrow();
  });

  it('stamps the world with the given instant, not the current time', () => {
    const now = Date.UTC(2030, 0, 2, 3, 4, 5);
    const world = createWorld({ players: 30, now });
    expect(world.generatedAt).toBe(now);
    expect(world.clock()).toBe(now);
    const online = world.players.online();
    expect(online.length).toBeGreaterThan(0);
    for (const player of online) expect(player.last_seen).toBe('2030-01-02 03:04:05');
    for (const player of world.players.list) expect(player.last_seen <= '2030-01-02 03:04:05').toBe(true);
  });

  it('defaults to seed 1, 200 players and mod 2.1.0', () => {
    const world = createWorld();
    expect(world.seed).toBe(1);
    expect(world.players.size).toBe(200);
    expect(world.modVersion).toBe('2.1.0');
  });

  it('puts about 15% of players online and honours onlineShare', () => {
    const world = createWorld({ players: 2_000 });
    expect(world.players.onlineCount() / 2_000).toBeCloseTo(0.15, 1);
    expect(createWorld({ players: 100, onlineShare: 0 }).players.onlineCount()).toBe(0);
  });

  it('generates an empty world with no players', () => {
    const world = createWorld({ players: 0 });
    expect(world.players.size).toBe(0);
    expect(world.squads.length).toBe(0);
    expect(world.ledger.length).toBe(0);
    expect(world.shop.deliveries.length).toBe(0);
    expect(world.shop.claimCodes.length).toBe(0);
    expect(world.commands.history.length).toBe(0);
  });

  it.each([
    [{ seed: 1.5 }, /seed/],
    [{ players: -1 }, /players/],
    [{ players: 2_000_000 }, /players/],
    [{ modVersion: 'latest' }, /mod version/],
    [{ onlineShare: 2 }, /onlineShare/],
    [{ now: Number.NaN }, /invalid time/],
    [{ ledgerEntries: 0.5 }, /ledgerEntries/],
  ])('rejects the invalid option %o', (options, message) => {
    expect(() => createWorld(options)).toThrow(message);
  });
});
