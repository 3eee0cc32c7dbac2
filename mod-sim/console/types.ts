/**
 * The console engine's vocabulary: what a command asks for, what the game answers, and what a
 * verb's behaviour is handed. The engine (engine.ts) does the checks every verb shares; a verb
 * (verbs-*.ts) does only its own part.
 */
import type {
  CommandCatalogEntry,
  CommandLevel,
  LedgerEntry,
  Player,
  Position,
  World,
} from '../world/index.ts';
import type { ParsedArgs } from './args.ts';
import type { CommandSource as ProtocolCommandSource } from '../../protocol/ops/commands.ts';
import type { ConsoleState } from './state.ts';

/**
 * Where a command came from: `api` and `panel` arrive over the mod link (the write's
 * actor.source), chat and task the game starts itself. The history entry's `source` (PROTOCOL §6.6).
 */
export type CommandSource = ProtocolCommandSource;

/** Who runs a command: the API key's actor, an admin at the panel, a player in chat, or nobody. */
export interface ConsoleActor {
  /** The API key id, or a label (`panel`, `chat`, `task`) for the game's own sources. */
  key_id: string;
  /** Moderator label on bans and mutes the command issues. */
  name: string;
  platform_id: string | null;
  social_id: string | null;
}

/** What the caller aimed a command at, before the game resolves it. */
export type ConsoleTarget =
  { player: { platform_id: string } | { social_id: string } } | { position: Position };

export interface ConsoleRequest {
  verb: string;
  args: readonly string[];
  target: ConsoleTarget | null;
  actor: ConsoleActor;
  source: CommandSource;
  /** The executor's rank: verbs above it are refused. */
  rank: CommandLevel;
  /** The in-game player running the command (chat); undefined from the API, panel and tasks. */
  caller?: Player | undefined;
  /** Why, for the ledger rows a currency change writes; default: the command as the history shows it. */
  reason?: string | undefined;
}

/** The subject as the game resolved it. A platform id is taken as is; `player` is who it names, if anyone. */
export type ResolvedSubject =
  | { kind: 'player'; platformId: string; player: Player | undefined }
  | { kind: 'position'; position: Position };

/** A balance change, for callers that account for it (the currency endpoints' ledger rows). */
export interface CurrencyEffect {
  kind: 'currency';
  platform_id: string;
  currency: 'cash' | 'gold';
  mode: 'delta' | 'set';
  amount: number;
  before: { cash: number; gold: number };
  after: { cash: number; gold: number };
}

/** A change of everyone's balance (on record, or online only); the game does not count them. */
export interface BulkCurrencyEffect {
  kind: 'currency_bulk';
  currency: 'cash' | 'gold';
  mode: 'delta' | 'set';
  amount: number;
  target: 'all' | 'online';
}

export type ConsoleEffect = CurrencyEffect | BulkCurrencyEffect;

/** What a verb's behaviour answers. */
export interface VerbOutcome {
  success: boolean;
  result: string;
  effects?: ConsoleEffect[];
}

/** What the engine answers for one command; it has already written the history entry. */
export interface ConsoleOutcome extends VerbOutcome {
  /** The catalogue's spelling when the verb is known, else as sent. */
  verb: string;
  subject: ResolvedSubject | null;
  /** The command as the history shows it. */
  command: string;
  effects: ConsoleEffect[];
  /** The economy ledger rows the effects wrote, in the same order (see ledger-rows.ts). */
  ledger: LedgerEntry[];
}

/** What a verb's behaviour is handed; target mode, rank, arguments and presence are already checked. */
export interface VerbRun {
  world: World;
  state: ConsoleState;
  entry: CommandCatalogEntry;
  args: ParsedArgs;
  subject: ResolvedSubject | null;
  request: ConsoleRequest;
  /** The world clock (epoch ms) the command runs at. */
  at: number;
}

export type VerbBehaviour = (run: VerbRun) => VerbOutcome;

export const ok = (result: string, effects?: ConsoleEffect[]): VerbOutcome =>
  effects === undefined ? { success: true, result } : { success: true, result, effects };
export const refused = (result: string): VerbOutcome => ({ success: false, result });

/** The rank names of the catalogue's levels. */
export const RANK_NAMES: Readonly<Record<CommandLevel, string>> = {
  0: 'regular',
  1: 'admin',
  2: 'super admin',
  3: 'elevated',
  4: 'developer',
};
