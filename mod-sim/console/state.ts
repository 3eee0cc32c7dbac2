/**
 * What the console changes that the world model has no place for: weather, time of day,
 * announcements, spawned things, the wandering zombie count, saves and restarts. Kept per world
 * (a WeakMap, so the world's own types stay as they are), so every console on one world agrees.
 */
import type { Position, World } from '../world/index.ts';

/** How many announcements and spawns the state remembers (the oldest go first). */
export const STATE_MEMORY = 100;

export interface Spawned {
  at: string;
  what: string;
  count: number;
  where: Position;
}

export interface ConsoleState {
  weather: string;
  /** Hour of day, 0 to 23. */
  hour: number;
  announcements: Array<{ at: string; text: string }>;
  spawned: Spawned[];
  /** Zombies roaming now: a base population plus what was spawned, cleared by WipeZombies. */
  zombies: number;
  debugDraw: boolean;
  lastSavedAt: string | null;
  /** When a requested restart is due; the simulator never actually restarts. */
  restartAt: string | null;
  configReloads: number;
  /** `vehicle:<entity id>` and `flag:<flag id>` of what was destroyed (the asset lists keep them). */
  destroyed: Set<string>;
  /**
   * Platform ids that disconnect right after their next currency change applies, before the game
   * reads the balance back (a fault for tests: see CommandConsole.leaveMidChange).
   */
  leavingMidChange: Set<string>;
}

const states = new WeakMap<World, ConsoleState>();

export function consoleStateOf(world: World): ConsoleState {
  let state = states.get(world);
  if (state === undefined) {
    state = {
      weather: 'Sunny',
      hour: 12,
      announcements: [],
      spawned: [],
      zombies: 40 + world.players.onlineCount() * 6,
      debugDraw: false,
      lastSavedAt: null,
      restartAt: null,
      configReloads: 0,
      destroyed: new Set(),
      leavingMidChange: new Set(),
    };
    states.set(world, state);
  }
  return state;
}

/** Appends to a remembered list, forgetting the oldest past STATE_MEMORY. */
export function remember<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > STATE_MEMORY) list.shift();
}
