/**
 * Command history: about 1.5 entries per player, oldest first, from admins (API, panel or chat),
 * players running level-0 verbs, and scheduled tasks (attributed to nobody: both actor ids
 * null). `actor` itself is null on entries written before the server's mod had the field: every
 * entry on a mod older than 2.0.47, and on newer mods the oldest tenth of the history (written
 * before the server upgraded).
 */
import type { FeatureSet } from '../mod-version.ts';
import type { CommandCatalogEntry, CommandHistoryEntry } from './command-types.ts';
import { weightTable } from './rng.ts';
import type { Rng } from './rng.ts';
import { historyStamp } from './time.ts';
import type { Actor, Player } from './types.ts';
import { ITEM_KINDS, VEHICLE_KINDS } from './vocab/items.ts';

export interface HistoryGenInput {
  count: number;
  players: readonly Player[];
  catalog: readonly CommandCatalogEntry[];
  openedAt: number;
  now: number;
}

/** Shared by all entries that no person can be credited with (frozen: never edited in place). */
export const UNATTRIBUTED: Actor = Object.freeze({ platform_id: null, social_id: null });

const TASK_VERBS = new Set(['Announce', 'SaveWorld', 'RestartServer', 'WipeZombies']);

/**
 * Verbs added to the catalogue after the history's shape was settled (catalogue version 5). They
 * weigh nothing here, so a seeded world's generated history is the same as before they existed.
 */
const NEVER_DRAWN = new Set(['ChangeCurrencyBalanceForAll', 'SetCurrencyBalanceForAll']);

function weightOf(entry: CommandCatalogEntry): number {
  if (NEVER_DRAWN.has(entry.verb)) return 0;
  return entry.level === 0 ? 1 : entry.direct_spawn_capable ? 6 : 3;
}

function argText(rng: Rng, entry: CommandCatalogEntry): string[] {
  return entry.args
    .filter((a) => a.required || rng.chance(0.5))
    .map((a) => {
      if (a.values.length > 0) return rng.pick(a.values);
      if (a.completion === 'items') return rng.pick(ITEM_KINDS).class;
      if (a.completion === 'vehicles' && a.type_name === 'VehicleClass')
        return rng.pick(VEHICLE_KINDS).className;
      if (a.data_type === 'float') return String(rng.real(-600_000, 600_000, 1));
      if (a.data_type === 'int') return String(rng.int(1, 24));
      return a.name === 'message' ? 'Server restart in 10 minutes' : rng.decimal(rng.int(6, 12));
    });
}

function commandText(rng: Rng, entry: CommandCatalogEntry, subject: Player | undefined): string {
  const parts = [`#${entry.verb}`];
  if (subject !== undefined && entry.target_mode !== 'none' && entry.target_mode !== 'position') {
    parts.push(subject.platform_id);
  }
  parts.push(...argText(rng, entry));
  return parts.join(' ');
}

function resultText(rng: Rng, entry: CommandCatalogEntry, command: string): string {
  if (rng.chance(0.05))
    return rng.pick(['Player not found', 'Invalid argument', 'No player online to carry the command']);
  if (entry.direct_spawn_capable) return `Spawned: ${command.split(' ').slice(1).join(' ')}`;
  if (entry.output_mode === 'list') return `${rng.int(0, 50)} results`;
  return entry.output_mode === 'silent' ? '' : `${entry.verb} executed`;
}

function actorFor(rng: Rng, entry: CommandCatalogEntry, admins: readonly Player[], caller: Player): Actor {
  if (TASK_VERBS.has(entry.verb) && rng.chance(0.7)) return UNATTRIBUTED;
  if (entry.level === 0) return caller.refs.identity;
  return admins.length > 0 ? rng.pick(admins).refs.identity : UNATTRIBUTED;
}

/** `count` entries oldest first, spread evenly between openedAt and now. */
export function generateCommandHistory(
  rng: Rng,
  input: HistoryGenInput,
  features: FeatureSet,
): CommandHistoryEntry[] {
  const { count, players, catalog, openedAt, now } = input;
  if (players.length === 0 || catalog.length === 0) return [];
  const admins = players.filter((player) => player.is_admin);
  const actorSince = features.commandHistoryActor
    ? openedAt + (now - openedAt) * 0.1
    : Number.POSITIVE_INFINITY;
  const verbs = weightTable(catalog.map((entry) => [entry, weightOf(entry)] as const));
  const entries: CommandHistoryEntry[] = [];
  for (let seq = 0; seq < count; seq++) {
    const at = Math.floor(openedAt + ((seq + rng.float()) * (now - openedAt)) / count);
    const entry = rng.weighted(verbs);
    const caller = rng.pick(players);
    const command = commandText(rng, entry, entry.target_mode === 'none' ? undefined : rng.pick(players));
    const actor = actorFor(rng, entry, admins, caller);
    entries.push({
      at: historyStamp(at),
      command,
      result: resultText(rng, entry, command),
      actor: at < actorSince ? null : actor,
    });
  }
  return entries;
}
