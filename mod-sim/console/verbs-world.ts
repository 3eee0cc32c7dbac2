/**
 * Server-wide verbs (Announce, SetWeather, SetTime, SaveWorld, RestartServer, WipeZombies,
 * ReloadConfig, ToggleDebugDraw, DestroyVehicle, DestroyFlag) and the spawners (SpawnItem,
 * SpawnVehicle, SpawnZombie, SpawnAnimal). They change the console state (state.ts). Silent verbs
 * answer an empty result when they succeed.
 *
 * The simulator keeps its asset lists as generated: a destroyed vehicle or flag is remembered as
 * destroyed (a second destroy is refused) but still listed by the asset reads, and a spawned
 * vehicle is not added to them.
 */
import { historyStamp } from '../world/index.ts';
import { ITEM_KINDS, VEHICLE_KINDS } from '../world/vocab/items.ts';
import { remember } from './state.ts';
import { ok, refused, type VerbBehaviour, type VerbRun } from './types.ts';
import { isPosition, positionText, subjectPosition } from './verb-helpers.ts';
import { onMap } from './verbs-players.ts';

/** Upper bounds of the spawners' optional counts (default 1). */
export const SPAWN_LIMITS = { items: 100, zombies: 50, animals: 20 } as const;
/** Longest restart countdown, in minutes. */
export const MAX_RESTART_MINUTES = 1_440;

const announce: VerbBehaviour = ({ state, args, at }) => {
  remember(state.announcements, { at: historyStamp(at), text: args.text('message') });
  return ok('');
};

const restartServer: VerbBehaviour = ({ state, args, at }) => {
  const minutes = args.number('minutes');
  if (minutes < 0 || minutes > MAX_RESTART_MINUTES) {
    return refused(`Restart countdown must be 0 to ${MAX_RESTART_MINUTES} minutes`);
  }
  state.restartAt = historyStamp(at + minutes * 60_000);
  return ok(`Server restart scheduled in ${minutes} minute(s)`);
};

function destroy(kind: 'vehicle' | 'flag', argName: string, exists: (run: VerbRun, id: string) => boolean) {
  return (run: VerbRun) => {
    const id = run.args.text(argName);
    const gone = run.state.destroyed;
    const key = `${kind}:${id}`;
    if (gone.has(key) || !exists(run, id)) return refused(`No ${kind} with id ${id}`);
    gone.add(key);
    return ok(`Destroyed ${kind} ${id}`);
  };
}

/** What a spawner makes: the thing's canonical name, or undefined when the game has no such thing. */
type Thing = (run: VerbRun) => string | undefined;

/** A spawner at the subject (a position, or a connected player's); `limit` bounds the optional count. */
function spawner(
  limit: number,
  thing: Thing,
  onSpawn?: (run: VerbRun, count: number) => void,
): VerbBehaviour {
  return (run) => {
    const where = subjectPosition(run);
    if (!isPosition(where)) return where;
    if (!onMap(where)) return refused(`Position ${positionText(where)} is outside the map`);
    const name = thing(run);
    const first = run.entry.args[0];
    if (name === undefined && first !== undefined) {
      return refused(`Unknown ${first.name} '${run.args.text(first.name)}'`);
    }
    const count = run.args.numberOr('count', 1);
    if (count < 1 || count > limit) return refused(`Count must be 1 to ${limit}`);
    remember(run.state.spawned, { at: historyStamp(run.at), what: name ?? 'thing', count, where });
    onSpawn?.(run, count);
    return ok(`Spawned ${count} x ${name} at ${positionText(where)}`);
  };
}

/** A class name from `classes`, matched without regard to case. */
const byClass =
  (classes: readonly string[], argName: string): Thing =>
  (run) => {
    const wanted = run.args.text(argName).toLowerCase();
    return classes.find((name) => name.toLowerCase() === wanted);
  };

const ITEM_CLASSES = ITEM_KINDS.map((kind) => kind.class);
const VEHICLE_CLASSES = VEHICLE_KINDS.map((kind) => kind.className);

export const WORLD_VERBS: Readonly<Record<string, VerbBehaviour>> = {
  Announce: announce,
  SetWeather: ({ state, args }) => {
    state.weather = args.text('weather');
    return ok(`Weather set to ${state.weather}`);
  },
  SetTime: ({ state, args }) => {
    const hour = args.number('hour');
    if (hour < 0 || hour > 23) return refused(`Hour must be 0 to 23, not ${hour}`);
    state.hour = hour;
    return ok(`Time set to ${String(hour).padStart(2, '0')}:00`);
  },
  SaveWorld: ({ state, at }) => {
    state.lastSavedAt = historyStamp(at);
    return ok('');
  },
  RestartServer: restartServer,
  WipeZombies: ({ state }) => {
    const removed = state.zombies;
    state.zombies = 0;
    return ok(`Removed ${removed} zombies`);
  },
  ReloadConfig: ({ state }) => {
    state.configReloads += 1;
    return ok('Configuration reloaded');
  },
  ToggleDebugDraw: ({ state, args }) => {
    state.debugDraw = args.text('state') === 'On';
    return ok('');
  },
  DestroyVehicle: destroy('vehicle', 'entity_id', (run, id) => run.world.assets.vehicles.has(id)),
  DestroyFlag: destroy('flag', 'flag_id', (run, id) => run.world.assets.bases.has(Number(id))),
  SpawnItem: spawner(SPAWN_LIMITS.items, byClass(ITEM_CLASSES, 'item')),
  SpawnVehicle: spawner(1, byClass(VEHICLE_CLASSES, 'vehicle')),
  SpawnZombie: spawner(
    SPAWN_LIMITS.zombies,
    () => 'Zombie',
    (run, count) => {
      run.state.zombies += count;
    },
  ),
  SpawnAnimal: spawner(SPAWN_LIMITS.animals, (run) => run.args.text('animal')),
};
