/**
 * The game's admin console. It builds its command catalogue some time after start-up (until then
 * the catalogue and the console answer `unavailable` with a retry hint), refuses the verbs on the
 * operator's blocklist, runs every other command through dispatch.ts, and writes one history
 * entry per command that reached it, whatever the outcome, on the game server's clock.
 *
 * A history entry's actor is the command's actor ({platform_id, social_id}, both null when no
 * person can be named), or null on a mod older than 2.0.47 (the world's `commandHistoryActor`).
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { CommandCatalog, CommandCatalogEntry, World } from '../world/index.ts';
import { historyStamp } from '../world/index.ts';
import { type CommandLine, CommandLineError, formatCommand, parseCommand } from './command-line.ts';
import { dispatch } from './dispatch.ts';
import { recordEffects } from './ledger-rows.ts';
import { consoleStateOf } from './state.ts';
import type {
  CommandSource,
  ConsoleActor,
  ConsoleOutcome,
  ConsoleRequest,
  ResolvedSubject,
} from './types.ts';
import type { CommandLevel, Player } from '../world/index.ts';

/** How long the game takes to build its catalogue after start-up, unless told otherwise. */
export const DEFAULT_CATALOG_DELAY_MS = 1_000;

export interface ConsoleOptions {
  /** Milliseconds from construction until the catalogue is built; 0 = built at once. */
  catalogDelayMs?: number;
  /** Verbs the operator blocked (any case); the game refuses them. */
  blockedVerbs?: readonly string[];
  /** Wall clock for the start-up delay (not the world clock); default Date.now. */
  now?: () => number;
}

/** A text command's context: who typed it, where, at what rank. */
export interface TypedCommand {
  actor: ConsoleActor;
  source: CommandSource;
  rank: CommandLevel;
  caller?: Player | undefined;
}

export class CommandConsole {
  readonly blockedVerbs: readonly string[];
  readonly #blocked: ReadonlySet<string>;
  readonly #byVerb: ReadonlyMap<string, CommandCatalogEntry>;
  readonly #now: () => number;
  #readyAt: number;

  constructor(
    readonly world: World,
    options: ConsoleOptions = {},
  ) {
    const delay = options.catalogDelayMs ?? DEFAULT_CATALOG_DELAY_MS;
    if (!Number.isSafeInteger(delay) || delay < 0) {
      throw new RangeError(`catalogDelayMs must be a whole number of ms, got ${String(delay)}`);
    }
    this.#now = options.now ?? Date.now;
    this.#readyAt = this.#now() + delay;
    this.blockedVerbs = [...(options.blockedVerbs ?? [])];
    this.#blocked = new Set(this.blockedVerbs.map((verb) => verb.toLowerCase()));
    this.#byVerb = new Map(world.commands.catalog.data.map((entry) => [entry.verb.toLowerCase(), entry]));
  }

  get catalogLoaded(): boolean {
    return this.#now() >= this.#readyAt;
  }

  /** Finishes building the catalogue now (tests; an operator's reload). */
  loadCatalog(): void {
    this.#readyAt = Math.min(this.#readyAt, this.#now());
  }

  /** The catalogue, sorted by verb; `unavailable` while it is being built. */
  catalog(): CommandCatalog {
    this.#requireLoaded();
    return this.world.commands.catalog;
  }

  /** The catalogue entry of a verb (any case), if the game has it. */
  entryOf(verb: string): CommandCatalogEntry | undefined {
    return this.#byVerb.get(verb.toLowerCase());
  }

  /**
   * Runs one command and logs it. Throws OpError `unavailable` before the catalogue is built and
   * `not_found` for a social id linked to nobody (then nothing runs and nothing is logged).
   */
  execute(request: ConsoleRequest): ConsoleOutcome {
    this.#requireLoaded();
    const subject = this.#resolve(request);
    const at = this.#nextAt();
    const entry = this.entryOf(request.verb.startsWith('#') ? request.verb.slice(1) : request.verb);
    const blocked = entry !== undefined && this.#blocked.has(entry.verb.toLowerCase());
    const outcome = dispatch({ world: this.world, entry, blocked, subject, request, at });
    const verb = entry?.verb ?? request.verb;
    const command = formatCommand(verb, subject, request.args);
    this.#log(at, command, outcome.result, request);
    const effects = outcome.effects ?? [];
    const ledger = recordEffects({ world: this.world, request, command, at }, effects);
    return { ...outcome, verb, subject, command, effects, ledger };
  }

  /**
   * A fault for tests: the player disconnects right after their next currency change applies,
   * before the game reads the balance back, so the change's ledger row has null balances.
   */
  leaveMidChange(platformId: string): void {
    consoleStateOf(this.world).leavingMidChange.add(platformId);
  }

  /** Runs a typed line, `#Verb [subject] arg…`, as chat and the panel do. */
  run(line: string, typed: TypedCommand): ConsoleOutcome {
    this.#requireLoaded();
    let parsed: CommandLine;
    try {
      parsed = parseCommand(line, (verb) => (this.entryOf(verb)?.target_mode ?? 'none') !== 'none');
    } catch (error) {
      if (!(error instanceof CommandLineError)) throw error;
      const at = this.#nextAt();
      const command = line.trim();
      this.#log(at, command, error.message, typed);
      return {
        verb: '',
        success: false,
        result: error.message,
        subject: null,
        command,
        effects: [],
        ledger: [],
      };
    }
    const target =
      parsed.subject === null
        ? null
        : 'position' in parsed.subject
          ? parsed.subject
          : { player: parsed.subject };
    return this.execute({ ...typed, verb: parsed.verb, args: parsed.args, target });
  }

  #requireLoaded(): void {
    if (this.catalogLoaded) return;
    const retryAfterSec = Math.max(1, Math.ceil((this.#readyAt - this.#now()) / 1000));
    throw new OpError('unavailable', 'The game server is still building its command catalogue.', {
      retry_after_sec: retryAfterSec,
    });
  }

  #resolve(request: ConsoleRequest): ResolvedSubject | null {
    const target = request.target;
    if (target === null) return null;
    if ('position' in target) return { kind: 'position', position: { ...target.position } };
    const ref = target.player;
    if ('platform_id' in ref) {
      return {
        kind: 'player',
        platformId: ref.platform_id,
        player: this.world.players.byPlatformId(ref.platform_id),
      };
    }
    const player = this.world.players.bySocialId(ref.social_id);
    if (player === undefined)
      throw new OpError('not_found', `social id ${ref.social_id} is not linked to any player`);
    return { kind: 'player', platformId: player.platform_id, player };
  }

  /** The world clock, never before the newest history entry, so the history stays in time order. */
  #nextAt(): number {
    const history = this.world.commands.history;
    const clock = this.world.clock();
    if (history.length === 0) return clock;
    const last = Date.parse(`${history.bySeq(history.length - 1).at.replace(' ', 'T')}Z`);
    return Math.max(clock, last);
  }

  /** Logs a command with who ran it and from where (the `source` a write's actor gave, chat, task). */
  #log(
    at: number,
    command: string,
    result: string,
    by: { actor: ConsoleActor; source: CommandSource },
  ): void {
    const attributed = this.world.features.commandHistoryActor;
    const { actor, source } = by;
    this.world.commands.history.append({
      at: historyStamp(at),
      command,
      result,
      actor: attributed ? { platform_id: actor.platform_id, social_id: actor.social_id } : null,
      source,
    });
  }
}
