/**
 * Player generation: the eager, mutable part of every player (roster fields, live state, refs).
 * Moderation is filled in by gen-moderation.ts, squad membership by gen-squads.ts.
 */
import { newPlatformId, newSocialId } from './ids.ts';
import { weightTable } from './rng.ts';
import type { Rng } from './rng.ts';
import { DAY, MINUTE, sqlDateTime } from './time.ts';
import type {
  Attributes,
  BanState,
  LiveState,
  MuteChannel,
  MuteState,
  Player,
  PlayerModeration,
  PlayerRefs,
  Position,
  Stance,
} from './types.ts';
import { WEAPON_KINDS } from './vocab/items.ts';
import { characterName, platformName } from './vocab/names.ts';

export interface PlayerGenOptions {
  count: number;
  /** Generation instant, epoch ms. */
  now: number;
  /** When the server first opened; accounts are created between this and `now`. */
  openedAt: number;
  /** Share of players online. */
  onlineShare: number;
}

/** Ids drawn so far, so each new one is unique. */
export interface IdRegistry {
  platformIds: Set<string>;
  socialIds: Set<string>;
}

const STANCES = weightTable<Stance>([
  ['standing', 70],
  ['crouching', 22],
  ['prone', 8],
]);

export function randomPosition(rng: Rng): Position {
  return { x: rng.real(-600_000, 600_000), y: rng.real(-600_000, 600_000), z: rng.real(0, 40_000) };
}

/** A connected player's live state (also for players who connect later). */
export function newLiveState(rng: Rng): LiveState {
  const alive = rng.chance(0.97);
  return {
    ping: rng.skewed(12, 350, 2),
    position: randomPosition(rng),
    stance: rng.weighted(STANCES),
    alive,
    conscious: alive && rng.chance(0.98),
    immortal: false,
    super_jump: false,
    item_in_hands: rng.chance(0.45) ? rng.pick(WEAPON_KINDS).class : null,
  };
}

function newAttributes(rng: Rng): Attributes {
  return {
    strength: rng.real(1, 8, 3),
    constitution: rng.real(1, 8, 3),
    dexterity: rng.real(1, 8, 3),
    intelligence: rng.real(1, 8, 3),
  };
}

/** Not banned. Shared by every such player and frozen: replace a ban state, never edit it. */
export const CLEAN_BAN: BanState = Object.freeze({
  banned: false,
  reason: '',
  permanent: false,
  expires_at: null,
  banned_at: null,
  banned_by: null,
});

/** Not muted. Shared and frozen like CLEAN_BAN. */
export const CLEAN_MUTE: MuteState = Object.freeze({
  muted: false,
  permanent: false,
  muted_at: null,
  duration_minutes: null,
  channels: Object.freeze([]) as unknown as MuteChannel[],
});

/** The state of a player nobody has banned or muted. */
export function cleanModeration(): PlayerModeration {
  return { ban: CLEAN_BAN, mute: CLEAN_MUTE };
}

/** The shared objects through which other records refer to a player. */
export function playerRefs(fields: {
  platform_id: string;
  social_id: string | null;
  user_profile_id: number;
  char_name: string;
}): PlayerRefs {
  const { platform_id, social_id, user_profile_id, char_name } = fields;
  return {
    identity: { platform_id, social_id },
    owner: { profile_id: user_profile_id, name: char_name, platform_id, social_id },
    moderator: { platform_id, social_id, name: char_name },
  };
}

function generatePlayer(rng: Rng, ordinal: number, options: PlayerGenOptions, ids: IdRegistry): Player {
  const { count, now, openedAt } = options;
  const span = now - DAY - openedAt;
  const createdAt = Math.floor(openedAt + ((ordinal + rng.float()) * span) / Math.max(count, 1));
  const online = rng.chance(options.onlineShare);
  const lastSeen = online ? now : Math.floor(now - (now - createdAt) * rng.float() ** 2);
  const activeMinutes = Math.max(1, Math.floor(((lastSeen - createdAt) / MINUTE) * rng.real(0.01, 0.25, 4)));
  const platformId = newPlatformId(rng, ids.platformIds);
  const socialId = rng.chance(0.6) ? newSocialId(rng, ids.socialIds) : null;
  const charName = characterName(rng);
  // One literal with every field (no spread): players then share one hidden class, which
  // matters at 100k players.
  return {
    platform_id: platformId,
    social_id: socialId,
    user_profile_id: ordinal + 1,
    platform_name: platformName(rng),
    char_name: charName,
    online,
    squad: null,
    money: rng.skewed(0, 500_000, 4),
    gold: rng.skewed(0, 500, 3),
    coins: rng.skewed(0, 5_000, 3),
    fame_points: rng.real(0, 5_000, 2),
    attributes: newAttributes(rng),
    play_time: activeMinutes,
    is_admin: false,
    last_seen: sqlDateTime(lastSeen),
    created_at: sqlDateTime(createdAt),
    cash_on_hand: rng.skewed(0, 20_000, 3),
    live: online ? newLiveState(rng) : null,
    moderation: cleanModeration(),
    ordinal,
    refs: playerRefs({
      platform_id: platformId,
      social_id: socialId,
      user_profile_id: ordinal + 1,
      char_name: charName,
    }),
  };
}

/** How many admins a server of `count` players has: a handful, whatever the size. */
export function adminCount(count: number): number {
  return count === 0 ? 0 : Math.min(12, Math.max(1, Math.ceil(count / 50)));
}

/** All players in ordinal (= creation = user_profile_id) order, a handful marked admin. */
export function generatePlayers(rng: Rng, options: PlayerGenOptions, ids: IdRegistry): Player[] {
  const players: Player[] = [];
  for (let ordinal = 0; ordinal < options.count; ordinal++) {
    players.push(generatePlayer(rng, ordinal, options, ids));
  }
  const admins = new Set<number>();
  while (admins.size < adminCount(options.count)) admins.add(rng.int(0, options.count - 1));
  for (const ordinal of admins) (players[ordinal] as Player).is_admin = true;
  return players;
}
