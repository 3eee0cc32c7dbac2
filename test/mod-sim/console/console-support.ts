/** Helpers for the console tests: a small world on a clock the test moves, and API-style requests. */
import { CommandConsole, type ConsoleOptions, type ConsoleRequest } from '../../../mod-sim/console/index.ts';
import type { Player, World, WorldOptions } from '../../../mod-sim/world/index.ts';
import { DEFAULT_NOW, createWorld } from '../../../mod-sim/world/index.ts';

export const API_ACTOR = {
  key_id: 'key_console',
  name: 'Console Bot',
  platform_id: '76561190000000077',
  social_id: '223344556677889900',
};

export interface ConsoleWorld {
  world: World;
  console: CommandConsole;
  /** Runs a command as the API would: full rank, attributed to API_ACTOR. */
  api(
    verb: string,
    args?: string[],
    target?: ConsoleRequest['target'],
  ): ReturnType<CommandConsole['execute']>;
  advance(ms: number): void;
}

export function consoleWorld(world: WorldOptions = {}, options: ConsoleOptions = {}): ConsoleWorld {
  let now = DEFAULT_NOW;
  const w = createWorld({ players: 120, ...world, clock: () => now });
  const console = new CommandConsole(w, { catalogDelayMs: 0, ...options });
  return {
    world: w,
    console,
    api: (verb, args = [], target = null) =>
      console.execute({ verb, args, target, actor: API_ACTOR, source: 'api', rank: 4 }),
    advance: (ms) => {
      now += ms;
    },
  };
}

export function onlinePlayer(world: World, n = 0): Player {
  const player = world.players.online()[n];
  if (player === undefined) throw new Error('not enough players online');
  return player;
}

export function offlinePlayer(world: World): Player {
  const player = world.players.list.values().find((p) => !p.online);
  if (player === undefined) throw new Error('nobody offline');
  return player;
}

export const at = (player: Player) => ({ player: { platform_id: player.platform_id } });

/** The newest history entry. */
export function newest(world: World) {
  const history = world.commands.history;
  return history.bySeq(history.length - 1);
}

/** Disconnects everyone. */
export function emptyServer(world: World): void {
  for (const player of [...world.players.online()]) world.players.setOnline(player, null);
}
