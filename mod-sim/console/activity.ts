/**
 * The game's own console traffic, so the history grows from every source and not only the API:
 * scheduled tasks (attributed to nobody: both actor ids null), an admin at the panel console
 * (that admin's identity), and players typing chat commands (their own identity, at their rank:
 * regular players run level-0 verbs, admins up to level 1). Each tick runs one typed command line
 * through the console, chosen from a seeded stream, so a given world and tick count give the same
 * history. Ticks before the catalogue is built, or with nothing to do, write nothing.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { Player } from '../world/index.ts';
import { deriveRng, STREAM, type Rng } from '../world/rng.ts';
import { quoteWord } from './command-line.ts';
import type { CommandConsole, TypedCommand } from './engine.ts';
import type { ConsoleActor, ConsoleOutcome } from './types.ts';

/** Default spacing of the game's own commands; 0 turns them off. */
export const DEFAULT_ACTIVITY_INTERVAL_MS = 60_000;

const WEATHERS = ['Sunny', 'Cloudy', 'Rain', 'Fog'];
const TASK_LINES = [
  '#SaveWorld',
  '#WipeZombies',
  `#Announce ${quoteWord('Remember to eat and drink')}`,
  `#Announce ${quoteWord('Server restart in 10 minutes')}`,
];

export const TASK_ACTOR: ConsoleActor = Object.freeze({
  key_id: 'task',
  name: 'Scheduled task',
  platform_id: null,
  social_id: null,
});

function actorOf(player: Player, source: 'panel' | 'chat'): ConsoleActor {
  return {
    key_id: source,
    name: player.char_name,
    platform_id: player.platform_id,
    social_id: player.social_id,
  };
}

export class ConsoleActivity {
  readonly #rng: Rng;
  #timer: NodeJS.Timeout | undefined;
  readonly #commands: CommandConsole;

  constructor(commands: CommandConsole) {
    this.#commands = commands;
    this.#rng = deriveRng(commands.world.seed, STREAM.consoleActivity);
  }

  /** Runs one command from one source; undefined when the console is not ready. */
  tick(): ConsoleOutcome | undefined {
    if (!this.#commands.catalogLoaded) return undefined;
    const roll = this.#rng.float();
    const online = this.#commands.world.players.online();
    if (roll < 0.3 && online.length > 0) return this.#chat(this.#rng.pick(online));
    if (roll < 0.6) {
      const admins = this.#commands.world.players.list.values().filter((p) => p.is_admin);
      if (admins.length > 0) return this.#panel(this.#rng.pick(admins), online);
    }
    return this.#task();
  }

  /** Ticks every `intervalMs` until stop(); the timer never keeps the process alive. */
  start(intervalMs: number = DEFAULT_ACTIVITY_INTERVAL_MS): void {
    this.stop();
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      try {
        this.tick();
      } catch (error) {
        if (!(error instanceof OpError)) throw error;
      }
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #task(): ConsoleOutcome {
    return this.#run(this.#rng.pick(TASK_LINES), { actor: TASK_ACTOR, source: 'task', rank: 4 });
  }

  #panel(admin: Player, online: readonly Player[]): ConsoleOutcome {
    const lines = ['#ListPlayers', `#SetWeather ${this.#rng.pick(WEATHERS)}`, '#Online'];
    if (online.length > 0) lines.push(`#Heal ${this.#rng.pick(online).platform_id}`);
    return this.#run(this.#rng.pick(lines), { actor: actorOf(admin, 'panel'), source: 'panel', rank: 4 });
  }

  #chat(player: Player): ConsoleOutcome {
    const lines = ['#Online', `#Location ${player.platform_id}`, '#Help'];
    if (player.is_admin) lines.push('#ListPlayers');
    const typed: TypedCommand = {
      actor: actorOf(player, 'chat'),
      source: 'chat',
      rank: player.is_admin ? 1 : 0,
      caller: player,
    };
    return this.#run(this.#rng.pick(lines), typed);
  }

  #run(line: string, typed: TypedCommand): ConsoleOutcome {
    return this.#commands.run(line, typed);
  }
}
