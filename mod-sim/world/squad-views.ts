/**
 * Spec-shaped views of a squad: list row, members, summary, and its members' assets as sorted
 * lists for the paginated `/squads/{id}/bases|vehicles|containers` reads. Built from the live
 * player records, so balances, links and presence are always current.
 */
import type {
  Base,
  Container,
  Squad,
  SquadMemberRow,
  SquadMembership,
  SquadRow,
  SquadSummary,
  Vehicle,
} from './asset-types.ts';
import type { World } from './create-world.ts';
import { IndexedList } from './indexed-list.ts';
import { compareDecimalStrings, compareNumbers } from './keyset.ts';
import { parseSqlDateTime, serverLocalStamp } from './time.ts';
import { SQUAD_RANK } from './types.ts';

function leaderOf(squad: Squad): SquadMembership {
  const leader = squad.members.find((m) => m.rank === SQUAD_RANK.leader) ?? squad.members[0];
  if (leader === undefined) throw new Error(`squad ${squad.id} has no members`);
  return leader;
}

export function squadRow(squad: Squad): SquadRow {
  const { player } = leaderOf(squad);
  return {
    id: squad.id,
    name: squad.name,
    score: squad.score,
    member_limit: squad.member_limit,
    member_count: squad.members.length,
    leader: {
      id: player.user_profile_id,
      platform_id: player.platform_id,
      social_id: player.social_id,
      name: player.char_name,
    },
    last_active: squad.last_active,
  };
}

export function squadMembers(world: World, squad: Squad): SquadMemberRow[] {
  return squad.members.map(({ id, player, rank }) => {
    const stats = world.players.details(player).service_stats;
    return {
      id,
      profile_id: player.user_profile_id,
      platform_id: player.platform_id,
      social_id: player.social_id,
      platform_name: player.platform_name,
      char_name: player.char_name,
      rank,
      kills: stats.kills,
      deaths: stats.deaths,
      cash: player.cash_on_hand,
      bank_money: player.money,
      gold: player.gold,
      fame_points: player.fame_points,
      online: player.online,
      last_logout: serverLocalStamp(parseSqlDateTime(player.last_seen)),
    };
  });
}

export function squadSummary(world: World, squad: Squad): SquadSummary {
  const summary: SquadSummary = {
    squad_id: squad.id,
    total_kills: 0,
    total_deaths: 0,
    total_cash: 0,
    total_bank_money: 0,
    total_gold: 0,
    total_fame: 0,
    total_containers: 0,
    total_vehicles: 0,
    member_count: squad.members.length,
  };
  for (const { player } of squad.members) {
    const stats = world.players.details(player).service_stats;
    const owned = world.assets.ownedBy(player.user_profile_id);
    summary.total_kills += stats.kills;
    summary.total_deaths += stats.deaths;
    summary.total_cash += player.cash_on_hand;
    summary.total_bank_money += player.money;
    summary.total_gold += player.gold;
    summary.total_fame += player.fame_points;
    summary.total_containers += owned.containers.length;
    summary.total_vehicles += owned.vehicles.length;
  }
  summary.total_fame = Math.round(summary.total_fame * 100) / 100;
  return summary;
}

export interface SquadAssets {
  bases: IndexedList<Base, number>;
  vehicles: IndexedList<Vehicle, string>;
  containers: IndexedList<Container, string>;
}

/** The members' assets, each list in the same order as the world-wide list. */
export function squadAssets(world: World, squad: Squad): SquadAssets {
  const owned = squad.members.map(({ player }) => world.assets.ownedBy(player.user_profile_id));
  return {
    bases: new IndexedList(
      owned.flatMap((o) => o.bases),
      (b) => b.flag_id,
      compareNumbers,
    ),
    vehicles: new IndexedList(
      owned.flatMap((o) => o.vehicles),
      (v) => v.entity_id,
      compareDecimalStrings,
    ),
    containers: new IndexedList(
      owned.flatMap((o) => o.containers),
      (c) => c.entity_id,
      compareDecimalStrings,
    ),
  };
}
