import { describe, expect, it } from 'vitest';
import {
  SQUAD_RANK,
  compareDecimalStrings,
  keysetPage,
  sqlDateTime,
  squadAssets,
  squadMembers,
  squadRow,
  squadSummary,
} from '../../../mod-sim/world/index.ts';
import { parseSqlDateTime } from '../../../mod-sim/world/time.ts';
import { sharedWorld } from './fixture.ts';

describe('squads', () => {
  const world = sharedWorld({ players: 1_000 });
  const squads = world.squads.values();

  it('gives every squad exactly one leader and ranks from 1 to 4', () => {
    expect(squads.length).toBeGreaterThan(20);
    for (const squad of squads) {
      expect(squad.members.filter((m) => m.rank === SQUAD_RANK.leader)).toHaveLength(1);
      expect(squad.members[0]?.rank).toBe(SQUAD_RANK.leader);
      for (const member of squad.members) expect([1, 2, 3, 4]).toContain(member.rank);
      expect(squad.members.filter((m) => m.rank === SQUAD_RANK.officer).length).toBeLessThanOrEqual(2);
    }
    const ranks = new Set(squads.flatMap((s) => s.members.map((m) => m.rank)));
    expect(ranks).toEqual(new Set([1, 2, 3, 4]));
  });

  it('keeps member_count equal to the members and within member_limit', () => {
    for (const squad of squads) {
      const row = squadRow(squad);
      expect(row.member_count).toBe(squad.members.length);
      expect(row.member_count).toBeGreaterThan(0);
      expect(row.member_count).toBeLessThanOrEqual(row.member_limit);
      expect(squadMembers(world, squad)).toHaveLength(row.member_count);
    }
  });

  it('names the squad and rank on each member and null on everyone else', () => {
    const members = new Map<string, { id: number; rank: number }>();
    for (const squad of squads) {
      for (const { player, rank } of squad.members) {
        expect(members.has(player.platform_id)).toBe(false);
        members.set(player.platform_id, { id: squad.id, rank });
        expect(player.squad).toEqual({ id: squad.id, name: squad.name, rank });
      }
    }
    for (const player of world.players.list) {
      if (!members.has(player.platform_id)) expect(player.squad).toBeNull();
    }
    expect(members.size / world.players.size).toBeCloseTo(0.4, 1);
  });

  it('gives squads unique names', () => {
    expect(new Set(squads.map((s) => s.name)).size).toBe(squads.length);
  });

  it('reports last_active as the raw server-local stamp of the latest member login', () => {
    for (const squad of squads) {
      expect(squad.last_active).toMatch(/^\d{4}\.\d{2}\.\d{2}-\d{2}\.\d{2}\.\d{2}$/);
      const latest =
        squad.members
          .map((m) => m.player.last_seen)
          .sort()
          .at(-1) ?? '';
      const [date, time] = squad.last_active.split('-');
      expect(`${date?.replaceAll('.', '-')} ${time?.replaceAll('.', ':')}`).toBe(latest);
    }
  });

  it('names the leader in the row with their current identity', () => {
    for (const squad of squads) {
      const leader = squad.members[0]!.player;
      expect(squadRow(squad).leader).toEqual({
        id: leader.user_profile_id,
        platform_id: leader.platform_id,
        social_id: leader.social_id,
        name: leader.char_name,
      });
    }
  });

  it('sums the members into the summary', () => {
    for (const squad of squads) {
      const members = squadMembers(world, squad);
      const summary = squadSummary(world, squad);
      const sum = (pick: (m: (typeof members)[number]) => number) => members.reduce((t, m) => t + pick(m), 0);
      expect(summary.total_kills).toBe(sum((m) => m.kills));
      expect(summary.total_deaths).toBe(sum((m) => m.deaths));
      expect(summary.total_cash).toBe(sum((m) => m.cash));
      expect(summary.total_bank_money).toBe(sum((m) => m.bank_money));
      expect(summary.total_gold).toBe(sum((m) => m.gold));
      expect(summary.total_fame).toBeCloseTo(
        sum((m) => m.fame_points),
        1,
      );
      const assets = squadAssets(world, squad);
      expect(summary.total_vehicles).toBe(assets.vehicles.length);
      expect(summary.total_containers).toBe(assets.containers.length);
    }
  });

  it('lists only members’ assets, in world order, pageable by key', () => {
    let checked = 0;
    for (const squad of squads) {
      const profiles = new Set(squad.members.map((m) => m.player.user_profile_id));
      const assets = squadAssets(world, squad);
      for (const asset of [...assets.bases, ...assets.vehicles, ...assets.containers]) {
        expect(profiles.has(asset.owner.profile_id)).toBe(true);
      }
      const ids = assets.containers.values().map((c) => c.entity_id);
      expect([...ids].sort(compareDecimalStrings)).toEqual(ids);
      if (assets.containers.length > 3) {
        const first = keysetPage(assets.containers, { limit: 2 });
        const second = keysetPage(assets.containers, { limit: 2, after: first.nextAfter ?? undefined });
        expect([...first.items, ...second.items].map((c) => c.entity_id)).toEqual(ids.slice(0, 4));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('formats member last_logout in the same raw form as last_active', () => {
    const squad = squads[0]!;
    for (const member of squadMembers(world, squad)) {
      const player = world.players.byPlatformId(member.platform_id)!;
      const [date, time] = member.last_logout.split('-');
      const ms = Date.parse(`${date?.replaceAll('.', '-')}T${time?.replaceAll('.', ':')}Z`);
      expect(sqlDateTime(ms)).toBe(player.last_seen);
      expect(parseSqlDateTime(player.last_seen)).toBe(ms);
    }
  });
});
