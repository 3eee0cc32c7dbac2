/**
 * The game going on by itself, so a bot watching the event stream sees traffic without anyone
 * calling the API (`modgate sim --events-rate N`, mod-sim/README.md): N times a minute, on a
 * seeded schedule, a player joins or leaves, and now and then an admin at the panel bans or
 * unbans someone, changes a balance, or runs a command. Everything goes through the same world
 * and console the API uses, so the events are the same ones an API write produces.
 */
import { OpError } from '../protocol/ops/index.ts';
import type { CommandConsole } from './console/index.ts';
import { newLiveState, type Player } from './world/index.ts';
import { deriveRng, STREAM, type Rng } from './world/rng.ts';

/** Off by default: tests and `modgate sim` without the flag see only what they cause. */
export const DEFAULT_EVENTS_RATE = 0;

export class GameLife {
  readonly #rng: Rng;
  #timer: NodeJS.Timeout | undefined;
  readonly #commands: CommandConsole;

  constructor(commands: CommandConsole) {
    this.#commands = commands;
    this.#rng = deriveRng(commands.world.seed, STREAM.gameLife);
  }

  /** Ticks `perMinute` times a minute until stop(); 0 never ticks. The timer never holds the process. */
  start(perMinute: number = DEFAULT_EVENTS_RATE): void {
    this.stop();
    if (!(perMinute > 0)) return;
    this.#timer = setInterval(() => this.tick(), Math.max(1, Math.round(60_000 / perMinute)));
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One happening: mostly presence, sometimes moderation, economy or a command. */
  tick(): void {
    const roll = this.#rng.float();
    try {
      if (roll < 0.7 || !this.#commands.catalogLoaded) this.#presence();
      else if (roll < 0.8) this.#panel(this.#moderationLine());
      else if (roll < 0.9)
        this.#panel(`#ChangeCurrencyBalance ${this.#anyone().platform_id} Normal ${this.#amount()}`);
      else this.#panel(this.#rng.pick(['#SaveWorld', '#Online', '#SetWeather Rain', '#SetTime 12']));
    } catch (error) {
      if (!(error instanceof OpError)) throw error;
    }
  }

  /** Keeps the share of players online steady: joins when few are, leaves when many are. */
  #presence(): void {
    const players = this.#commands.world.players;
    const online = players.online();
    const leave = online.length > 0 && this.#rng.float() < online.length / Math.max(1, players.size) / 0.3;
    if (leave) return players.setOnline(this.#rng.pick(online), null);
    const offline = this.#pickOffline();
    if (offline) players.setOnline(offline, newLiveState(this.#rng));
  }

  #pickOffline(): Player | undefined {
    const players = this.#commands.world.players;
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const player = players.atOrdinal(this.#rng.int(0, Math.max(0, players.size - 1)));
      if (player && !player.online && !player.moderation.ban.banned) return player;
    }
    return undefined;
  }

  #moderationLine(): string {
    const banned = this.#commands.world.players.list.values().find((p) => p.moderation.ban.banned);
    if (banned && this.#rng.chance(0.4)) return `#Unban ${banned.platform_id}`;
    return `#Ban ${this.#anyone().platform_id} ${this.#rng.int(1, 72)}`;
  }

  #anyone(): Player {
    const online = this.#commands.world.players.online();
    if (online.length > 0) return this.#rng.pick(online);
    return this.#commands.world.players.atOrdinal(0) as Player;
  }

  #amount(): number {
    return this.#rng.int(-500, 1_000) || 1;
  }

  #panel(line: string): void {
    const admin = this.#commands.world.players.list.values().find((p) => p.is_admin);
    const actor = {
      key_id: 'panel',
      name: admin?.char_name ?? 'Server admin',
      platform_id: admin?.platform_id ?? null,
      social_id: admin?.social_id ?? null,
    };
    this.#commands.run(line, { actor, source: 'panel', rank: 4 });
  }
}
