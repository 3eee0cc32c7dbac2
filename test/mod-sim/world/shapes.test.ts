/**
 * Every object the world hands out has exactly the keys of the spec's "Resources and their
 * fields" (plus our documented inner fields where the spec says "not shown"), none undefined.
 */
import { describe, expect, it } from 'vitest';
import type { InventoryItem } from '../../../mod-sim/world/index.ts';
import {
  moderationState,
  onlineRow,
  playerProfile,
  rosterRow,
  squadMembers,
  squadRow,
  squadSummary,
} from '../../../mod-sim/world/index.ts';
import { allLedgerEntries, sharedWorld } from './fixture.ts';
import {
  BAN,
  BASE,
  CATALOG_ARG,
  CATALOG_ENTRY,
  CLAIM_CODE,
  CONTAINER,
  DELIVERY,
  HISTORY,
  IDENTITY,
  INVENTORY_ITEM,
  LEDGER,
  MODERATOR,
  MUTE,
  ONLINE,
  OWNER,
  PACK,
  PACK_REF,
  POSITION,
  PROFILE,
  ROSTER,
  SERVICE_STATS_TOTALS,
  SQUAD_MEMBER,
  SQUAD_ROW,
  SQUAD_SUMMARY,
  VEHICLE,
  VIOLATION,
} from './spec-keys.ts';

function keysOf(value: unknown): string[] {
  return Object.keys(value as object);
}

function expectInventory(items: readonly InventoryItem[]): void {
  for (const item of items) {
    expect(keysOf(item)).toEqual(INVENTORY_ITEM);
    expectInventory(item.contents);
  }
}

describe('spec shapes', () => {
  const world = sharedWorld();
  const players = world.players.list.values();

  it('has exactly the roster-row keys on every roster row, squad and attributes included', () => {
    for (const player of players) {
      const row = rosterRow(player);
      expect(keysOf(row)).toEqual(ROSTER);
      expect(keysOf(row.attributes)).toEqual(['strength', 'constitution', 'dexterity', 'intelligence']);
      if (row.squad !== null) expect(keysOf(row.squad)).toEqual(['id', 'name', 'rank']);
    }
  });

  it('has every profile key, with the profile totals inside service_stats', () => {
    for (const player of players) {
      const profile = playerProfile(world, player);
      expect(keysOf(profile)).toEqual(PROFILE);
      expect(keysOf(profile.service_stats)).toEqual(expect.arrayContaining(SERVICE_STATS_TOTALS));
      for (const base of profile.bases) expect(keysOf(base)).toEqual(BASE);
      for (const vehicle of profile.vehicles) expect(keysOf(vehicle)).toEqual(VEHICLE);
    }
  });

  it('has the online-row keys on every connected player and no row for others', () => {
    for (const player of players) {
      const row = onlineRow(player);
      if (!player.online) {
        expect(row).toBeUndefined();
        continue;
      }
      expect(keysOf(row)).toEqual(ONLINE);
      expect(keysOf(row?.position)).toEqual(POSITION);
    }
  });

  it('has the moderation-state keys, with banned_by null or a moderator', () => {
    for (const player of players) {
      const state = moderationState(player);
      expect(keysOf(state)).toEqual(['player', 'ban', 'mute']);
      expect(keysOf(state.player)).toEqual(IDENTITY);
      expect(keysOf(state.ban)).toEqual(BAN);
      expect(keysOf(state.mute)).toEqual(MUTE);
      if (state.ban.banned_by !== null) expect(keysOf(state.ban.banned_by)).toEqual(MODERATOR);
    }
  });

  it('has the violation and IP-history keys', () => {
    for (const player of players) {
      for (const violation of world.players.violations(player)) {
        expect(keysOf(violation)).toEqual(VIOLATION);
        expect(keysOf(violation.issued_by)).toEqual(MODERATOR);
      }
      const ips = world.players.ipHistory(player);
      expect(keysOf(ips)).toEqual(['current_ip', 'history']);
      for (const entry of ips.history) expect(keysOf(entry)).toEqual(['ip', 'first_seen', 'last_seen']);
    }
  });

  it('has the squad row, member and summary keys', () => {
    for (const squad of world.squads) {
      const row = squadRow(squad);
      expect(keysOf(row)).toEqual(SQUAD_ROW);
      expect(keysOf(row.leader)).toEqual(['id', 'platform_id', 'social_id', 'name']);
      for (const member of squadMembers(world, squad)) expect(keysOf(member)).toEqual(SQUAD_MEMBER);
      expect(keysOf(squadSummary(world, squad))).toEqual(SQUAD_SUMMARY);
    }
  });

  it('has exactly the base, vehicle and container keys, with owner objects', () => {
    for (const base of world.assets.bases) {
      expect(keysOf(base)).toEqual(BASE);
      expect(keysOf(base.owner)).toEqual(OWNER);
      expect(keysOf(base.position)).toEqual(POSITION);
    }
    for (const vehicle of world.assets.vehicles) {
      expect(keysOf(vehicle)).toEqual(VEHICLE);
      expect(keysOf(vehicle.owner)).toEqual(OWNER);
    }
    for (const container of world.assets.containers) {
      expect(keysOf(container)).toEqual(CONTAINER);
      expect(keysOf(container.owner)).toEqual(OWNER);
    }
  });

  it('has exactly the InventoryItem keys at every depth of every inventory', () => {
    for (const player of players) expectInventory(world.players.inventory(player));
    for (const vehicle of world.assets.vehicles) expectInventory(world.assets.vehicleInventory(vehicle));
    for (const container of world.assets.containers)
      expectInventory(world.assets.containerInventory(container));
  });

  it('has the pack, delivery and claim-code keys', () => {
    for (const pack of world.shop.packs) {
      expect(keysOf(pack)).toEqual(PACK);
      expect(keysOf(pack.category)).toEqual(['id', 'name']);
      expect(keysOf(pack.buy_limit)).toEqual(['count', 'window_minutes']);
    }
    for (const delivery of world.shop.deliveries) {
      expect(keysOf(delivery)).toEqual(DELIVERY);
      expect(keysOf(delivery.pack)).toEqual(PACK_REF);
      expect(keysOf(delivery.player)).toEqual(IDENTITY);
    }
    for (const code of world.shop.claimCodes) {
      expect(keysOf(code)).toEqual(CLAIM_CODE);
      expect(keysOf(code.pack)).toEqual(PACK_REF);
      if (code.target !== null) expect(keysOf(code.target)).toEqual(IDENTITY);
      if (code.dm !== null) expect(keysOf(code.dm)).toEqual(['channel_id', 'message_id']);
    }
  });

  it('has the ledger, catalogue and history keys', () => {
    for (const entry of allLedgerEntries(world)) {
      expect(keysOf(entry)).toEqual(LEDGER);
      if (entry.player !== null) expect(keysOf(entry.player)).toEqual(IDENTITY);
      if (entry.actor !== null) expect(keysOf(entry.actor)).toEqual(IDENTITY);
    }
    expect(keysOf(world.commands.catalog)).toEqual(['version', 'data']);
    for (const entry of world.commands.catalog.data) {
      expect(keysOf(entry)).toEqual(CATALOG_ENTRY);
      for (const arg of entry.args) expect(keysOf(arg)).toEqual(CATALOG_ARG);
    }
    for (const entry of world.commands.history.query(undefined, 10_000).items) {
      expect(keysOf(entry)).toEqual(HISTORY);
      if (entry.actor !== null) expect(keysOf(entry.actor)).toEqual(IDENTITY);
    }
  });

  it('never leaves a value undefined anywhere in the world', () => {
    // Walk the live objects: JSON would drop an undefined property without a trace.
    const undefinedAt: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (value === undefined) undefinedAt.push(path);
      else if (value !== null && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) walk(inner, `${path}.${key}`);
      }
    };
    for (const player of players) {
      walk(playerProfile(world, player), player.platform_id);
      walk(moderationState(player), `${player.platform_id}.moderation`);
      walk(onlineRow(player) ?? null, `${player.platform_id}.online`);
      walk(world.players.inventory(player), `${player.platform_id}.inventory`);
      walk(world.players.violations(player).values(), `${player.platform_id}.violations`);
      walk(world.players.ipHistory(player), `${player.platform_id}.ips`);
    }
    for (const squad of world.squads) {
      walk([squadRow(squad), squadMembers(world, squad), squadSummary(world, squad)], `squad ${squad.id}`);
    }
    walk(world.assets.bases.values(), 'bases');
    walk(world.assets.vehicles.values(), 'vehicles');
    walk(world.assets.containers.values(), 'containers');
    walk(world.shop.packs.values(), 'packs');
    walk(world.shop.deliveries.values(), 'deliveries');
    walk(world.shop.claimCodes.values(), 'claim codes');
    walk(allLedgerEntries(world), 'ledger');
    walk(world.commands.catalog, 'catalog');
    walk(world.commands.history.query(undefined, 10_000).items, 'history');
    expect(undefinedAt).toEqual([]);
  });
});
