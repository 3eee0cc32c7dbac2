/**
 * Squads and the assets players own: bases, vehicles, containers (spec "Squad", "Base",
 * "Vehicle", "Container"). Entity ids are decimal strings, some above 2^53, and never pass
 * through a JS number.
 */
import type { Owner, Player, Position, SquadRank } from './types.ts';

/** A squad's stored record; the view layer builds the spec's list row, members and summary. */
export interface Squad {
  id: number;
  name: string;
  score: number;
  member_limit: number;
  /** Raw server-local stamp `YYYY.MM.DD-HH.MM.SS` of the last member login (not ISO-8601). */
  last_active: string;
  /** Leader first, then by rank (high to low) and member id. */
  members: SquadMembership[];
}

export interface SquadMembership {
  /** Membership row id. */
  id: number;
  player: Player;
  rank: SquadRank;
}

/** Spec squad list row and detail. */
export interface SquadRow {
  id: number;
  name: string;
  score: number;
  member_limit: number;
  member_count: number;
  leader: { id: number; platform_id: string; social_id: string | null; name: string };
  last_active: string;
}

/** Spec squad member. */
export interface SquadMemberRow {
  id: number;
  profile_id: number;
  platform_id: string;
  social_id: string | null;
  platform_name: string;
  char_name: string;
  rank: SquadRank;
  kills: number;
  deaths: number;
  cash: number;
  bank_money: number;
  gold: number;
  fame_points: number;
  online: boolean;
  last_logout: string;
}

/** Spec squad summary. */
export interface SquadSummary {
  squad_id: number;
  total_kills: number;
  total_deaths: number;
  total_cash: number;
  total_bank_money: number;
  total_gold: number;
  total_fame: number;
  total_containers: number;
  total_vehicles: number;
  member_count: number;
}

/** Spec "Base"; the bases endpoints' key is flag_id. */
export interface Base {
  flag_id: number;
  base_id: number;
  owner: Owner;
  max_elements: number;
  element_count: number;
  /** Average element health, 0.0 to 1.0. */
  avg_health: number;
  position: Position;
}

export type LockType = 'improvised' | 'basic' | 'advanced';

/** Spec "Vehicle". */
export interface Vehicle {
  entity_id: string;
  class_name: string;
  display_name: string;
  owner: Owner;
  health: number;
  max_health: number;
  position: Position;
  is_locked: boolean;
  lock_type: LockType | null;
  lock_hp: number;
  is_functional: boolean;
  last_access_time: string | null;
  /** Items in the inventory tree as returned (all depths); null when the mod did not report it. */
  item_count: number | null;
}

/** Spec "Container". base_id and base_name are null outside any base (our decision). */
export interface Container {
  entity_id: string;
  class_name: string;
  display_name: string;
  /** The owner's label for it; empty when unnamed. */
  custom_name: string;
  owner: Owner;
  base_id: number | null;
  base_name: string | null;
  position: Position;
  is_locked: boolean;
  lock_type: LockType | null;
  lock_hp: number;
  is_buried: boolean;
  last_access_time: string | null;
  item_count: number | null;
}

/** Everything one player owns, for profiles, squad summaries and the owner filters. */
export interface OwnedAssets {
  bases: Base[];
  vehicles: Vehicle[];
  containers: Container[];
}
