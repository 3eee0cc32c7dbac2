/**
 * Helpers for the economy handler tests: a small world on clocks the test moves (the world clock
 * and the bulk coin cooldown's), its console, and `call`, which checks the arguments and the
 * result against the op catalogue as the bridge and the daemon do.
 */
import type { OpArgs, OpResult } from '../../../protocol/ops/index.ts';
import { catalogueCaller } from '../../support/catalogue-call.ts';
import { CommandConsole } from '../../../mod-sim/console/index.ts';
import { economyHandlers, type EconomyOpName } from '../../../mod-sim/handlers/economy.ts';
import type { LedgerEntry, Player, World, WorldOptions } from '../../../mod-sim/world/index.ts';
import { DEFAULT_NOW, createWorld } from '../../../mod-sim/world/index.ts';

export const ACTOR = {
  key_id: 'key_economy',
  name: 'Economy Bot',
  platform_id: '76561190000000055',
  social_id: '334455667788990011',
};

export const ACTOR_IDENTITY = { platform_id: ACTOR.platform_id, social_id: ACTOR.social_id };

export interface EconomyWorld {
  world: World;
  console: CommandConsole;
  call<N extends EconomyOpName>(name: N, args: OpArgs<N>, opId?: string): Promise<OpResult<N>>;
  /** Moves the world clock and the cooldown clock forward. */
  advance(ms: number): void;
  /** The newest ledger entry. */
  newest(): LedgerEntry;
}

export function economyWorld(options: WorldOptions = {}): EconomyWorld {
  let now = DEFAULT_NOW;
  const world = createWorld({ players: 120, ...options, clock: () => now });
  const gameConsole = new CommandConsole(world, { catalogDelayMs: 0 });
  const handlers = economyHandlers(world, gameConsole, { now: () => now });
  const call = catalogueCaller(handlers);
  return {
    world,
    console: gameConsole,
    call,
    advance: (ms) => {
      now += ms;
    },
    newest: () => world.ledger.entry(world.ledger.length - 1),
  };
}

export function onlinePlayer(world: World, n = 0): Player {
  const player = world.players.online()[n];
  if (player === undefined) throw new Error('not enough players online');
  return player;
}

export function offlinePlayer(world: World, n = 0): Player {
  const player = world.players.list.values().filter((p) => !p.online)[n];
  if (player === undefined) throw new Error('not enough players offline');
  return player;
}

export function linkedPlayer(world: World): Player {
  const player = world.players.list.values().find((p) => p.social_id !== null && p.online);
  if (player === undefined) throw new Error('nobody online is linked');
  return player;
}

/** A well-formed platform id that no player of `world` has. */
export function strangerId(world: World, n = 1): string {
  const id = `7656118${String(n).padStart(10, '0')}`;
  if (world.players.byPlatformId(id) !== undefined) throw new Error(`${id} is taken`);
  return id;
}

/** What a handler threw, for `expect(...).rejects`-free assertions on code and details. */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details?: unknown };
  }
  throw new Error('expected the op to fail');
}
