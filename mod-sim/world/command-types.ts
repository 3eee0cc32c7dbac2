/** The admin command catalogue and command history (spec "Command catalog entry", "…history entry"). */
import type { CommandSource } from '../../protocol/ops/commands.ts';
import type { Actor } from './types.ts';

/** 0 regular, 1 admin, 2 super admin, 3 elevated, 4 developer: the executor rank required. */
export type CommandLevel = 0 | 1 | 2 | 3 | 4;

/** Our values (the spec leaves target_mode open). */
export const TARGET_MODES = ['none', 'player', 'position', 'player_or_position'] as const;
export type TargetMode = (typeof TARGET_MODES)[number];

/** Our values (the spec leaves output_mode open). */
export const OUTPUT_MODES = ['text', 'list', 'silent'] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

export interface CommandArg {
  name: string;
  type_name: string;
  description: string;
  data_type: 'string' | 'int' | 'float' | 'bool';
  /** What a client may offer for completion: `items`, `vehicles`, `players`, `none`, … */
  completion: string;
  required: boolean;
  repeating: boolean;
  /** Allowed options of a fixed-choice argument; empty when the values are dynamic. */
  values: string[];
}

export interface CommandCatalogEntry {
  verb: string;
  level: CommandLevel;
  target_mode: TargetMode;
  output_mode: OutputMode;
  requires_online: boolean;
  direct_spawn_capable: boolean;
  args: CommandArg[];
}

export interface CommandCatalog {
  version: number;
  /** Sorted by verb, so identical catalogues serialise byte-identically. */
  data: CommandCatalogEntry[];
}

export interface CommandHistoryEntry {
  /** `YYYY-MM-DD HH:MM:SS.mmm` on the game server's clock. */
  at: string;
  command: string;
  result: string;
  /** Null on entries written by a game server older than the field (mod < 2.0.47). */
  actor: Actor | null;
  /**
   * Where it came from (PROTOCOL §6.6): run-time commands say; the generated history, like a game's
   * entries from before the field, does not.
   */
  source?: CommandSource;
}
