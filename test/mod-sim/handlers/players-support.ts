/**
 * Helpers for the player handler tests: a small world on a clock the test moves, and `call`,
 * which checks the arguments and the result against the op catalogue, as the bridge and the
 * daemon do.
 */
import type { OpArgs, OpResult } from '../../../protocol/ops/index.ts';
import { catalogueCaller } from '../../support/catalogue-call.ts';
import { playerHandlers, type PlayerOpName } from '../../../mod-sim/handlers/players.ts';
import type { RosterPage } from '../../../mod-sim/handlers/players-list.ts';
import type { Player, World, WorldOptions } from '../../../mod-sim/world/index.ts';
import { DEFAULT_NOW, createWorld } from '../../../mod-sim/world/index.ts';

/**
 * The result of players.list. OpResult<'players.list'> lacks `total` (opPage's conditional return
 * type collapses to the page without it), so the tests use the handler's own type.
 */
export type ListPage = RosterPage;

export interface TestWorld {
  world: World;
  call<N extends PlayerOpName>(name: N, args: OpArgs<N>, opId?: string): Promise<OpResult<N>>;
  list(args: Partial<OpArgs<'players.list'>>): Promise<ListPage>;
  /** Moves the world clock forward. */
  advance(ms: number): void;
  now(): number;
}

export function testWorld(options: WorldOptions = {}): TestWorld {
  let now = DEFAULT_NOW;
  const world = createWorld({ players: 120, ...options, clock: () => now });
  const handlers = playerHandlers(world);
  const call = catalogueCaller(handlers);
  return {
    world,
    call,
    list: async (args) => {
      const page = await call('players.list', { after: null, limit: 100, ...args });
      if (!('total' in page)) throw new Error('players.list answered without total');
      return page as unknown as RosterPage;
    },
    advance: (ms) => {
      now += ms;
    },
    now: () => now,
  };
}

export const ACTOR = {
  key_id: 'key_test',
  name: 'Ops Bot',
  platform_id: '76561190000000099',
  social_id: '123456789012345678',
};

export const BANNED_BY = { platform_id: ACTOR.platform_id, social_id: ACTOR.social_id, name: ACTOR.name };

/** A well-formed platform id that no player of `world` has. */
export function neverJoinedId(world: World, n = 1): string {
  const id = `7656118${String(n).padStart(10, '0')}`;
  if (world.players.byPlatformId(id) !== undefined) throw new Error(`${id} is taken`);
  return id;
}

/** A social id that nobody holds. */
export function freeSocialId(world: World, n = 1): string {
  const id = `99${String(n).padStart(16, '0')}`;
  if (world.players.bySocialId(id) !== undefined) throw new Error(`${id} is taken`);
  return id;
}

export function find(world: World, test: (player: Player) => boolean): Player {
  const player = world.players.list.values().find(test);
  if (player === undefined) throw new Error('no such player in the test world');
  return player;
}

/** A player neither banned nor muted, optionally matching `test`. */
export function cleanPlayer(world: World, test: (player: Player) => boolean = () => true): Player {
  return find(world, (p) => !p.moderation.ban.banned && !p.moderation.mute.muted && test(p));
}

/** Ban arguments with the defaults the daemon fills in. */
export function banArgs(
  ref: OpArgs<'players.ban'>['ref'],
  over: Partial<OpArgs<'players.ban'>> = {},
): OpArgs<'players.ban'> {
  return {
    ref,
    reason: 'Griefing',
    permanent: false,
    duration: 2,
    duration_unit: 'hours',
    squad_id: null,
    actor: ACTOR,
    ...over,
  };
}

export function muteArgs(
  ref: OpArgs<'players.mute'>['ref'],
  over: Partial<OpArgs<'players.mute'>> = {},
): OpArgs<'players.mute'> {
  return {
    ref,
    reason: 'Spam',
    permanent: false,
    duration: 90,
    duration_unit: 'minutes',
    channels: ['Global', 'Local', 'Squad'],
    actor: ACTOR,
    ...over,
  };
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
