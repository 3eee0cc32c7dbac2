/**
 * Squads: about 40% of players belong to one. Each squad has exactly one leader (rank 4), up to
 * two officers (3), then members (2) and recruits (1); member_count never exceeds member_limit,
 * and each member's `squad` field names the squad and their rank.
 */
import type { Squad, SquadMembership } from './asset-types.ts';
import type { Rng } from './rng.ts';
import { parseSqlDateTime, serverLocalStamp } from './time.ts';
import type { Player, SquadRank } from './types.ts';
import { SQUAD_RANK } from './types.ts';
import { squadName } from './vocab/names.ts';

const MEMBER_LIMITS = [8, 10, 12, 16] as const;

function rankFor(rng: Rng, position: number, officers: number): SquadRank {
  if (position === 0) return SQUAD_RANK.leader;
  if (position <= officers) return SQUAD_RANK.officer;
  return rng.chance(0.7) ? SQUAD_RANK.member : SQUAD_RANK.recruit;
}

/** A squad name, numbered from the second use on ("Iron Wolves 2"). `uses` counts each base name. */
function uniqueName(rng: Rng, uses: Map<string, number>): string {
  const base = squadName(rng);
  const count = (uses.get(base) ?? 0) + 1;
  uses.set(base, count);
  return count === 1 ? base : `${base} ${count}`;
}

/** Sorts leader first, then by rank high to low, then membership id. */
export function compareMemberships(a: SquadMembership, b: SquadMembership): number {
  return b.rank - a.rank || a.id - b.id;
}

function lastActive(members: readonly SquadMembership[]): string {
  let latest = 0;
  for (const { player } of members) latest = Math.max(latest, parseSqlDateTime(player.last_seen));
  return serverLocalStamp(latest);
}

interface SquadDraft {
  id: number;
  limit: number;
  people: Player[];
}

function buildSquad(
  rng: Rng,
  draft: SquadDraft,
  nextMemberId: () => number,
  names: Map<string, number>,
): Squad {
  const { id, limit, people } = draft;
  const name = uniqueName(rng, names);
  const officers = Math.min(people.length - 1, rng.int(0, 2));
  const members = people.map((player, position) => {
    const rank = rankFor(rng, position, officers);
    player.squad = { id, name, rank };
    return { id: nextMemberId(), player, rank };
  });
  members.sort(compareMemberships);
  return {
    id,
    name,
    score: rng.real(0, 25_000, 2),
    member_limit: limit,
    last_active: lastActive(members),
    members,
  };
}

/** Partitions a shuffled ~40% of players into squads with ids 1, 2, … */
export function generateSquads(rng: Rng, players: readonly Player[]): Squad[] {
  const pool = rng.shuffle(players.filter(() => rng.chance(0.4)));
  const squads: Squad[] = [];
  const names = new Map<string, number>();
  let memberId = 0;
  const nextMemberId = (): number => ++memberId;
  let taken = 0;
  while (taken < pool.length) {
    const limit = rng.pick(MEMBER_LIMITS);
    const size = Math.min(pool.length - taken, 1 + rng.skewed(0, limit - 1, 2));
    const people = pool.slice(taken, taken + size);
    squads.push(buildSquad(rng, { id: squads.length + 1, limit, people }, nextMemberId, names));
    taken += size;
  }
  return squads;
}
