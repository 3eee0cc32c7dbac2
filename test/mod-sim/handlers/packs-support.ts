/**
 * Helpers for the pack and claim-code handler tests: a small world on a clock the test moves, a
 * fault plan, and `call`, which checks arguments and result against the op catalogue as the
 * bridge and the daemon do.
 */
import type { OpArgs, OpResult } from '../../../protocol/ops/index.ts';
import { catalogueCaller } from '../../support/catalogue-call.ts';
import { FaultPlan } from '../../../mod-sim/faults.ts';
import { claimCodeHandlers, type ClaimCodeOpName } from '../../../mod-sim/handlers/claim-codes.ts';
import { PLAYER_INVENTORY_CAPACITY } from '../../../mod-sim/handlers/packs-deliver.ts';
import { packHandlers, type PackOpName } from '../../../mod-sim/handlers/packs.ts';
import type { Pack, Player, World, WorldOptions } from '../../../mod-sim/world/index.ts';
import { DEFAULT_NOW, countItems, createWorld } from '../../../mod-sim/world/index.ts';

export type ShopOpName = PackOpName | ClaimCodeOpName;

export interface ShopWorld {
  world: World;
  faults: FaultPlan;
  call<N extends ShopOpName>(name: N, args: OpArgs<N>, opId?: string): Promise<OpResult<N>>;
  /** A page of a list op with its total (opPage's type leaves `total` optional). */
  list<N extends 'packs.list' | 'packs.deliveries' | 'claim_codes.list'>(
    name: N,
    args: Partial<OpArgs<N>>,
  ): Promise<OpResult<N> & { total: number }>;
  advance(ms: number): void;
}

export function shopWorld(options: WorldOptions = {}): ShopWorld {
  let now = DEFAULT_NOW;
  const world = createWorld({ players: 150, ...options, clock: () => now });
  const faults = new FaultPlan();
  const handlers = { ...packHandlers(world, { faults }), ...claimCodeHandlers(world, { faults }) };
  const call = catalogueCaller(handlers);
  return {
    world,
    faults,
    call,
    list: async (name, args) => {
      const page = await call(name, { after: null, limit: 100, ...args } as never);
      if (!('total' in page)) throw new Error(`${name} answered without total`);
      return page as never;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export const ACTOR = {
  key_id: 'key_test',
  name: 'Shop Bot',
  platform_id: '76561190000000099',
  social_id: '123456789012345678',
};

/** A well-formed platform id nobody in `world` has. */
export function neverJoinedId(world: World, n = 1): string {
  const id = `7656118${String(n).padStart(10, '0')}`;
  if (world.players.byPlatformId(id) !== undefined) throw new Error(`${id} is taken`);
  return id;
}

export function findPlayer(world: World, test: (player: Player) => boolean, skip = 0): Player {
  const player = world.players.list.values().filter(test)[skip];
  if (player === undefined) throw new Error('no such player in the test world');
  return player;
}

/** A live pack of a template slug (any edition: the first may have been deleted). */
export function packBySlug(world: World, slug: string): Pack {
  const edition = new RegExp(`^${slug}(-[0-9]+)?$`);
  const pack = world.shop.packs.values().find((p) => edition.test(p.name) && p.enabled);
  if (pack === undefined) throw new Error(`no live pack ${slug}`);
  return pack;
}

/** Free inventory slots of a player. */
export function roomOf(world: World, player: Player): number {
  return PLAYER_INVENTORY_CAPACITY - countItems(world.players.inventory(player));
}

export function deliverArgs(
  pack: Pack,
  player: OpArgs<'packs.deliver'>['player'],
  quantity = 1,
): OpArgs<'packs.deliver'> {
  return { pack_id: String(pack.id), player, quantity, actor: ACTOR };
}
