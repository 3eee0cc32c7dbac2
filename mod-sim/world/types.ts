/**
 * The world's records, in the spec's snake_case (spec "Resources and their fields") so API
 * responses are near pass-through. A field the spec marks nullable is `T | null` and always
 * present. Records that refer to a player share that player's `PlayerIdentity` / `Owner` /
 * `Moderator` objects, so a social link change is seen everywhere at once (the spec requires
 * "the current link" in delivery rows and owner objects).
 */
import type { z } from 'zod';
import type { IpHistory as IpHistoryShape, Violation as ViolationShape } from '../../protocol/ops/players.ts';

export interface Position {
  x: number;
  y: number;
  z: number;
}

/** Spec "Identity object". */
export interface PlayerIdentity {
  platform_id: string;
  social_id: string | null;
}

/** Spec "Owner object" (assets). `name` is the character name. */
export interface Owner {
  profile_id: number;
  name: string;
  platform_id: string;
  social_id: string | null;
}

/** Who issued a ban, mute or violation. System and legacy entries have a null platform id. */
export interface Moderator {
  platform_id: string | null;
  social_id: string | null;
  name: string;
}

/** Command-history attribution; both ids null when no person can be named. */
export interface Actor {
  platform_id: string | null;
  social_id: string | null;
}

/** Spec "InventoryItem": all keys required, no others. */
export interface InventoryItem {
  id: number;
  class: string;
  name: string;
  icon: string;
  health: number;
  max_health: number;
  weight: number;
  is_container: boolean;
  is_weapon: boolean;
  contents: InventoryItem[];
  contents_truncated: boolean;
}

/** Spec "Pack reference"; both labels null once the pack is deleted. */
export interface PackRef {
  id: number;
  name: string | null;
  display_name: string | null;
}

// ---- players ------------------------------------------------------------------------------

export type SquadRank = 1 | 2 | 3 | 4;

export const SQUAD_RANK = { leader: 4, officer: 3, member: 2, recruit: 1 } as const;

export interface SquadRef {
  id: number;
  name: string;
  rank: SquadRank;
}

export interface Attributes {
  strength: number;
  constitution: number;
  dexterity: number;
  intelligence: number;
}

export type Stance = 'standing' | 'crouching' | 'prone';

/** What the online snapshot shows of a connected player (spec "Online player"). */
export interface LiveState {
  ping: number;
  position: Position;
  stance: Stance;
  alive: boolean;
  conscious: boolean;
  immortal: boolean;
  super_jump: boolean;
  /** Class name of the held item; null when the hands are empty. */
  item_in_hands: string | null;
}

export type MuteChannel = 'Global' | 'Local' | 'Squad';

export const MUTE_CHANNELS: readonly MuteChannel[] = ['Global', 'Local', 'Squad'];

export interface BanState {
  banned: boolean;
  /** Empty when not banned. */
  reason: string;
  permanent: boolean;
  expires_at: string | null;
  banned_at: string | null;
  banned_by: Moderator | null;
}

export interface MuteState {
  muted: boolean;
  permanent: boolean;
  muted_at: string | null;
  duration_minutes: number | null;
  /** Empty when not muted. */
  channels: MuteChannel[];
}

/**
 * Spec "Moderation state" minus `player` (the view adds the identity). Change it by assigning a
 * new `ban` / `mute` object: the not-banned and not-muted states are shared, frozen objects.
 */
export interface PlayerModeration {
  ban: BanState;
  mute: MuteState;
}

/** The shared objects through which other records refer to this player. */
export interface PlayerRefs {
  readonly identity: PlayerIdentity;
  readonly owner: Owner;
  readonly moderator: Moderator;
}

/**
 * A player. The top-level spec fields are exactly the roster row; the rest is game-side state
 * that other views draw on. Heavy, read-mostly parts (service stats, skills, survival,
 * inventory, IP history) are derived lazily by the player store.
 */
export interface Player {
  platform_id: string;
  social_id: string | null;
  user_profile_id: number;
  platform_name: string;
  char_name: string;
  online: boolean;
  squad: SquadRef | null;
  /** Bank balance; the ledger and currency endpoints call this asset `cash`. */
  money: number;
  gold: number;
  coins: number;
  fame_points: number;
  attributes: Attributes;
  /** Minutes (our decision; the spec leaves the unit open). */
  play_time: number;
  is_admin: boolean;
  last_seen: string;
  created_at: string;
  /** Carried cash: the squad member row's `cash` (its `bank_money` is `money`). */
  cash_on_hand: number;
  /** Present while online. */
  live: LiveState | null;
  moderation: PlayerModeration;
  /** Generation order (user_profile_id - 1); seeds the lazily derived parts. */
  readonly ordinal: number;
  readonly refs: PlayerRefs;
}

/** Inner fields of the profile's service_stats (spec: not shown; our choice). */
export interface ServiceStats {
  kills: number;
  deaths: number;
  puppet_kills: number;
  animal_kills: number;
  headshots: number;
  longest_kill_m: number;
  kill_streak: number;
  best_kill_streak: number;
  /** Null on mods older than 2.0.47 (spec, Versioning 4). */
  total_kills: number | null;
  total_deaths: number | null;
  login_streak: number | null;
  logins: number;
  first_login_at: string;
  last_login_at: string;
  last_kill_at: string | null;
  last_death_at: string | null;
}

/** The profile's typed survival block (inner fields: our choice). */
export interface Survival {
  health: number;
  stamina: number;
  hunger: number;
  thirst: number;
  fatigue: number;
  body_temperature: number;
  bleeding: boolean;
  infected: boolean;
  broken_limbs: number;
  weight_carried: number;
  weight_limit: number;
}

export interface PlayerDetails {
  service_stats: ServiceStats;
  /** Skill name → fractional level. */
  skills: Record<string, number>;
  survival: Survival;
}

/**
 * Spec "Violation entry", as the op catalogue declares it (protocol/ops/players.ts). expires_at is
 * null for permanent bans and trap events (decision).
 */
export type Violation = z.infer<ReturnType<typeof ViolationShape>>;
export type ViolationType = Violation['type'];

/** The IP history read, as the op catalogue declares it. */
export type IpHistory = z.infer<ReturnType<typeof IpHistoryShape>>;
export type IpHistoryEntry = IpHistory['history'][number];
