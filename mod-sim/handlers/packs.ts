/**
 * Handlers for the pack ops (protocol/ops/packs.ts): the catalogue (newest-configured first, id
 * descending), one pack, free API grants, and the delivery history (newest first). Claim codes
 * are in claim-codes.ts; the delivery itself in packs-deliver.ts.
 *
 * Cost of one page, n packs or deliveries, k = limit: O(log n + rows examined), which is k + 1
 * without a filter; a total is O(1) without a filter and one pass with one.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpHandlers } from '../../protocol/ops/index.ts';
import type { FaultPlan } from '../faults.ts';
import type { PlayerIdentity, Pack, PackDelivery, Player, World } from '../world/index.ts';
import { NUMBER_KEY, allOf, countOf, notFound, pageOf } from './assets-paging.ts';
import { DELIVERED_STATUSES, type GameFaults, deliverPack, gameFaults } from './packs-deliver.ts';
import { type ArgsOf, notFound as playerNotFound } from './players-common.ts';
import { oncePerOpId } from './players.ts';

export type PackOpName = 'packs.list' | 'packs.get' | 'packs.deliver' | 'packs.deliveries';
export type PackHandlers = Pick<OpHandlers, PackOpName>;

export interface PackHandlerOptions {
  /** The simulator's fault plan: rules naming `packs.ledger` or `packs.refund` fail those steps. */
  faults?: FaultPlan;
}

const same = <T>(item: T): T => item;

/** The live pack with this id (text, as it crossed the link); undefined when there is none. */
export function findPack(world: World, id: string): Pack | undefined {
  const key = NUMBER_KEY.parse(id);
  return key === undefined ? undefined : world.shop.pack(key);
}

export function resolvePack(world: World, id: string): Pack {
  const pack = findPack(world, id);
  if (pack === undefined) throw notFound('pack', id);
  return pack;
}

/** The ledger actor of a write: the key owner's identity, or null for a key without an owner. */
export function actorIdentity(actor: ArgsOf<'packs.deliver'>['actor']): PlayerIdentity | null {
  return actor.platform_id === null ? null : { platform_id: actor.platform_id, social_id: actor.social_id };
}

function listPacks(world: World, args: ArgsOf<'packs.list'>) {
  const needle = args.search?.toLowerCase();
  const category = args.category_id === undefined ? undefined : NUMBER_KEY.parse(args.category_id);
  const filter = allOf<Pack>(
    args.enabled !== undefined && ((p) => p.enabled === args.enabled),
    args.category_id !== undefined && ((p) => p.category.id === category),
    needle !== undefined &&
      needle !== '' &&
      ((p) => p.name.toLowerCase().includes(needle) || p.display_name.toLowerCase().includes(needle)),
  );
  const list = world.shop.packs;
  return { ...pageOf(list, args, NUMBER_KEY, same, filter), total: countOf(list, filter) };
}

function listDeliveries(world: World, args: ArgsOf<'packs.deliveries'>) {
  const packKey = args.pack_id === undefined ? undefined : NUMBER_KEY.parse(args.pack_id);
  // Rows share the player's identity object, so social_id is the current link (an unlinked
  // social id matches no row: an empty page).
  const filter = allOf<PackDelivery>(
    args.platform_id !== undefined && ((d) => d.player.platform_id === args.platform_id),
    args.social_id !== undefined && ((d) => d.player.social_id === args.social_id),
    args.pack_id !== undefined && ((d) => d.pack.id === packKey),
    args.source !== undefined && ((d) => d.source === args.source),
    args.status !== undefined && ((d) => d.status === args.status),
  );
  const list = world.shop.deliveries;
  return { ...pageOf(list, args, NUMBER_KEY, same, filter), total: countOf(list, filter) };
}

/**
 * `packs.deliver`: a free grant recorded with source `api`. Mods before 2.0.40 cannot honour one
 * (`unsupported`, which the daemon answers as 409). A social id must resolve; a well-formed
 * platform id the game has never seen is accepted and the delivery fails.
 */
function grant(world: World, args: ArgsOf<'packs.deliver'>, faults: GameFaults) {
  if (!world.features.freePackGrants) {
    throw new OpError(
      'unsupported',
      `free pack grants need mod 2.0.40 or later (this is ${world.modVersion})`,
    );
  }
  const pack = resolvePack(world, args.pack_id);
  let player: Player | undefined;
  let platformId: string;
  if ('social_id' in args.player) {
    player = world.players.bySocialId(args.player.social_id);
    if (player === undefined) throw playerNotFound(args.player);
    platformId = player.platform_id;
  } else {
    platformId = args.player.platform_id;
    player = world.players.byPlatformId(platformId);
  }
  const record = deliverPack(
    world,
    {
      pack,
      player,
      platformId,
      quantity: args.quantity,
      source: 'api',
      unitPrice: 0,
      actor: actorIdentity(args.actor),
    },
    faults,
  );
  return {
    pack: { ...record.pack },
    player: { ...record.player },
    quantity: record.quantity,
    delivered: DELIVERED_STATUSES.has(record.status),
    status: record.status,
    purchase_id: record.id,
    error_message: record.error_message,
  };
}

export function packHandlers(world: World, options: PackHandlerOptions = {}): PackHandlers {
  const faults = gameFaults(options.faults);
  return {
    'packs.list': (args) => listPacks(world, args),
    'packs.get': (args) => resolvePack(world, args.id),
    'packs.deliver': oncePerOpId(world, 'packs.deliver', (args) => grant(world, args, faults)),
    'packs.deliveries': (args) => listDeliveries(world, args),
  };
}
