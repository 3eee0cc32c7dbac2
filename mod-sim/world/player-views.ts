/**
 * Spec-shaped views of a player: roster row, online snapshot row, full profile, moderation
 * state. Each returns a new object with exactly the spec's keys, in the spec's order; nested
 * objects are the world's own (treat them as read-only).
 */
import type { Base, Vehicle } from './asset-types.ts';
import type { World } from './create-world.ts';
import type {
  Attributes,
  BanState,
  PlayerIdentity,
  MuteState,
  Player,
  Position,
  ServiceStats,
  SquadRef,
  Stance,
  Survival,
} from './types.ts';

/** Spec "Player roster row". */
export interface RosterRow {
  platform_id: string;
  social_id: string | null;
  user_profile_id: number;
  platform_name: string;
  char_name: string;
  online: boolean;
  squad: SquadRef | null;
  money: number;
  gold: number;
  coins: number;
  fame_points: number;
  attributes: Attributes;
  play_time: number;
  is_admin: boolean;
  last_seen: string;
  created_at: string;
}

/** Spec "Player full profile". */
export interface PlayerProfile extends RosterRow {
  service_stats: ServiceStats;
  skills: Record<string, number>;
  bases: Base[];
  vehicles: Vehicle[];
  survival: Survival;
}

/** Spec "Online player" row. */
export interface OnlineRow {
  platform_id: string;
  name: string;
  ping: number;
  position: Position;
  alive: boolean;
  conscious: boolean;
  immortal: boolean;
  super_jump: boolean;
  is_admin: boolean;
  money: number;
  gold: number;
  fame_points: number;
  stance: Stance;
  item_in_hands: string | null;
}

/** Spec "Moderation state". */
export interface ModerationState {
  player: PlayerIdentity;
  ban: BanState;
  mute: MuteState;
}

export function rosterRow(player: Player): RosterRow {
  return {
    platform_id: player.platform_id,
    social_id: player.social_id,
    user_profile_id: player.user_profile_id,
    platform_name: player.platform_name,
    char_name: player.char_name,
    online: player.online,
    squad: player.squad,
    money: player.money,
    gold: player.gold,
    coins: player.coins,
    fame_points: player.fame_points,
    attributes: player.attributes,
    play_time: player.play_time,
    is_admin: player.is_admin,
    last_seen: player.last_seen,
    created_at: player.created_at,
  };
}

export function playerProfile(world: World, player: Player): PlayerProfile {
  const details = world.players.details(player);
  const owned = world.assets.ownedBy(player.user_profile_id);
  return {
    ...rosterRow(player),
    service_stats: details.service_stats,
    skills: details.skills,
    bases: [...owned.bases],
    vehicles: [...owned.vehicles],
    survival: details.survival,
  };
}

/** The online snapshot row; undefined for an offline player (no live state). */
export function onlineRow(player: Player): OnlineRow | undefined {
  const live = player.live;
  if (!player.online || live === null) return undefined;
  return {
    platform_id: player.platform_id,
    name: player.char_name,
    ping: live.ping,
    position: live.position,
    alive: live.alive,
    conscious: live.conscious,
    immortal: live.immortal,
    super_jump: live.super_jump,
    is_admin: player.is_admin,
    money: player.money,
    gold: player.gold,
    fame_points: player.fame_points,
    stance: live.stance,
    item_in_hands: live.item_in_hands,
  };
}

export function moderationState(player: Player): ModerationState {
  return { player: player.refs.identity, ban: player.moderation.ban, mute: player.moderation.mute };
}
