/**
 * The lazily derived, read-mostly parts of a player: service stats, skills, survival and IP
 * history. Each comes from its own stream keyed by the player's ordinal, so it is the same
 * whenever it is first read; the player store memoises it, and later changes stick.
 */
import type { FeatureSet } from '../mod-version.ts';
import { newIpAddress } from './ids.ts';
import { STREAM, deriveRng, weightTable } from './rng.ts';
import type { Rng } from './rng.ts';
import { DAY, HOUR, isoDateTime, parseSqlDateTime, sqlDateTime } from './time.ts';
import type { IpHistory, IpHistoryEntry, Player, PlayerDetails, ServiceStats, Survival } from './types.ts';
import { SKILL_NAMES } from './vocab/items.ts';

const BROKEN_LIMBS = weightTable([
  [0, 92],
  [1, 6],
  [2, 2],
]);

const IP_COUNTS = weightTable([
  [1, 40],
  [2, 30],
  [3, 15],
  [4, 8],
  [5, 5],
  [6, 2],
]);

function serviceStats(rng: Rng, player: Player, features: FeatureSet): ServiceStats {
  const hours = player.play_time / 60;
  const kills = rng.skewed(0, Math.ceil(hours * 2) + 1, 2);
  const deaths = rng.skewed(0, Math.ceil(hours * 1.2) + 1, 2);
  const bestStreak = Math.min(kills, rng.skewed(0, 25, 3));
  const createdAt = parseSqlDateTime(player.created_at);
  const lastSeen = parseSqlDateTime(player.last_seen);
  const between = (): string => sqlDateTime(Math.floor(createdAt + (lastSeen - createdAt) * rng.float()));
  const lifetime = features.profileTotals;
  return {
    kills,
    deaths,
    puppet_kills: rng.skewed(0, Math.ceil(hours * 20) + 1, 2),
    animal_kills: rng.skewed(0, Math.ceil(hours * 3) + 1, 2),
    headshots: Math.floor(kills * rng.real(0, 0.6)),
    longest_kill_m: kills > 0 ? rng.real(5, 900, 1) : 0,
    kill_streak: Math.min(bestStreak, rng.int(0, 5)),
    best_kill_streak: bestStreak,
    total_kills: lifetime ? kills + rng.skewed(0, 400, 3) : null,
    total_deaths: lifetime ? deaths + rng.skewed(0, 300, 3) : null,
    login_streak: lifetime ? rng.skewed(0, 60, 3) : null,
    logins: Math.max(1, Math.floor(hours / rng.real(0.5, 4))),
    first_login_at: player.created_at,
    last_login_at: player.last_seen,
    last_kill_at: kills > 0 ? between() : null,
    last_death_at: deaths > 0 ? between() : null,
  };
}

function skills(rng: Rng): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of SKILL_NAMES) out[name] = rng.real(0, 4, 2);
  return out;
}

function survival(rng: Rng, player: Player): Survival {
  const dead = player.live !== null && !player.live.alive;
  return {
    health: dead ? 0 : rng.real(15, 100, 1),
    stamina: rng.real(0, 100, 1),
    hunger: rng.real(0, 1, 3),
    thirst: rng.real(0, 1, 3),
    fatigue: rng.real(0, 1, 3),
    body_temperature: rng.real(35.2, 38.4, 1),
    bleeding: rng.chance(0.05),
    infected: rng.chance(0.03),
    broken_limbs: rng.weighted(BROKEN_LIMBS),
    weight_carried: rng.real(2, 45, 1),
    weight_limit: 50,
  };
}

export function derivePlayerDetails(seed: number, player: Player, features: FeatureSet): PlayerDetails {
  const rng = deriveRng(seed, STREAM.playerDetails, player.ordinal);
  return {
    service_stats: serviceStats(rng, player, features),
    skills: skills(rng),
    survival: survival(rng, player),
  };
}

/** One to six addresses, newest first; the newest is still in use at last_seen. */
export function deriveIpHistory(seed: number, player: Player): IpHistory {
  const rng = deriveRng(seed, STREAM.ipHistory, player.ordinal);
  const createdAt = parseSqlDateTime(player.created_at);
  let end = parseSqlDateTime(player.last_seen);
  const count = rng.weighted(IP_COUNTS);
  const history: IpHistoryEntry[] = [];
  for (let i = 0; i < count && end > createdAt; i++) {
    const start = i === count - 1 ? createdAt : Math.max(createdAt, end - rng.int(1, 90) * DAY);
    history.push({ ip: newIpAddress(rng), first_seen: isoDateTime(start), last_seen: isoDateTime(end) });
    end = start - rng.int(1, 48) * HOUR;
  }
  if (history.length === 0) {
    history.push({ ip: newIpAddress(rng), first_seen: isoDateTime(createdAt), last_seen: isoDateTime(end) });
  }
  return { current_ip: (history[0] as IpHistoryEntry).ip, history };
}
