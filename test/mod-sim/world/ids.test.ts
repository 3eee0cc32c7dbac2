import { describe, expect, it } from 'vitest';
import type { InventoryItem } from '../../../mod-sim/world/index.ts';
import { ENTITY_ID_PATTERN, PLATFORM_ID_PATTERN, SOCIAL_ID_PATTERN } from '../../../mod-sim/world/index.ts';
import { allLedgerEntries, sharedWorld } from './fixture.ts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function itemIds(items: readonly InventoryItem[], out: number[] = []): number[] {
  for (const item of items) {
    out.push(item.id);
    itemIds(item.contents, out);
  }
  return out;
}

describe('world identifiers', () => {
  const world = sharedWorld({ players: 1_000 });
  const players = world.players.list.values();

  it('gives every player a unique 17-digit platform id with the platform prefix', () => {
    const ids = players.map((p) => p.platform_id);
    for (const id of ids) {
      expect(id).toMatch(PLATFORM_ID_PATTERN);
      expect(id.startsWith('7656119')).toBe(true);
    }
    expect(new Set(ids).size).toBe(players.length);
  });

  it('links about 60% of players to a unique social id of 17 to 20 digits', () => {
    const social = players.flatMap((p) => (p.social_id === null ? [] : [p.social_id]));
    expect(social.length / players.length).toBeCloseTo(0.6, 1);
    for (const id of social) expect(id).toMatch(SOCIAL_ID_PATTERN);
    expect(new Set(social).size).toBe(social.length);
    expect(new Set(social.map((id) => id.length))).toEqual(new Set([17, 18, 19, 20]));
  });

  it('numbers user profiles 1 to n without gaps', () => {
    const ids = players.map((p) => p.user_profile_id).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: players.length }, (_, i) => i + 1));
  });

  it('gives vehicles and containers unique decimal-string entity ids, some above 2^53', () => {
    const ids = [...world.assets.vehicles, ...world.assets.containers].map((a) => a.entity_id);
    for (const id of ids) {
      expect(typeof id).toBe('string');
      expect(id).toMatch(ENTITY_ID_PATTERN);
    }
    expect(new Set(ids).size).toBe(ids.length);
    const large = ids.filter((id) => BigInt(id) > MAX_SAFE);
    expect(large.length).toBeGreaterThan(ids.length / 10);
    // Such an id does not survive a trip through a JS number.
    expect(large.some((id) => String(Number(id)) !== id)).toBe(true);
  });

  it('keeps entity-id lists in exact numeric order, above 2^53 included', () => {
    for (const list of [world.assets.vehicles.values(), world.assets.containers.values()]) {
      for (let i = 1; i < list.length; i++) {
        expect(BigInt(list[i - 1]!.entity_id) < BigInt(list[i]!.entity_id)).toBe(true);
      }
    }
  });

  it('gives every inventory item a world-unique integer id', () => {
    const ids = [
      ...players.flatMap((p) => itemIds(world.players.inventory(p))),
      ...world.assets.vehicles.values().flatMap((v) => itemIds(world.assets.vehicleInventory(v))),
      ...world.assets.containers.values().flatMap((c) => itemIds(world.assets.containerInventory(c))),
    ];
    for (const id of ids) expect(Number.isSafeInteger(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives squads, bases, packs and deliveries unique integer ids', () => {
    for (const ids of [
      world.squads.values().map((s) => s.id),
      world.assets.bases.values().map((b) => b.flag_id),
      world.assets.bases.values().map((b) => b.base_id),
      world.shop.packs.values().map((p) => p.id),
      world.shop.deliveries.values().map((d) => d.id),
    ]) {
      for (const id of ids) expect(Number.isSafeInteger(id) && id > 0).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('gives ledger entries decimal-string ids and claim codes unique codes', () => {
    const ledger = allLedgerEntries(world);
    ledger.forEach((entry, seq) => expect(entry.id).toBe(String(seq + 1)));
    const codes = world.shop.claimCodes.values().map((c) => c.code);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
