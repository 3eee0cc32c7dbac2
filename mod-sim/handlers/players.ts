/**
 * Handlers for the player ops (protocol/ops/players.ts): reads in players-list.ts and
 * players-reads.ts, moderation writes in players-moderation.ts, social links in players-links.ts.
 *
 * Every write is applied at most once per op id (PROTOCOL §6.4): the world remembers the result
 * of each op id it applied (`world.appliedOps`, the last 10,000) and answers a repeat with that
 * result, unchanged, without applying again. A failed write records nothing, so its retry is
 * evaluated afresh.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpHandler, OpHandlers, OpName, OpResult } from '../../protocol/ops/index.ts';
import type { World } from '../world/index.ts';
import type { ArgsOf } from './players-common.ts';
import { linkPlayer, unlinkPlayer } from './players-links.ts';
import { listPlayers } from './players-list.ts';
import { banPlayer, mutePlayer, unbanPlayer, unmutePlayer } from './players-moderation.ts';
import {
  getInventory,
  getIps,
  getModeration,
  getProfile,
  listViolations,
  onlineSnapshot,
} from './players-reads.ts';

export type PlayerOpName =
  | 'players.list'
  | 'players.online'
  | 'players.get'
  | 'players.inventory'
  | 'players.moderation'
  | 'players.violations'
  | 'players.ips'
  | 'players.ban'
  | 'players.unban'
  | 'players.mute'
  | 'players.unmute'
  | 'players.link'
  | 'players.unlink';

export type PlayerHandlers = Pick<OpHandlers, PlayerOpName>;

/**
 * Wraps a write so a repeated op id answers with the first result. An op id first used by a
 * different op is a `conflict` (the daemon never reuses one; the game must not apply it twice).
 */
export function oncePerOpId<N extends OpName>(
  world: World,
  name: N,
  apply: (args: ArgsOf<N>) => OpResult<N>,
): OpHandler<N> {
  return (args, ctx) => {
    const { opId } = ctx;
    if (opId === undefined) return apply(args);
    const applied = world.appliedOps.get(opId);
    if (applied !== undefined) {
      if (applied.op !== name)
        throw new OpError('conflict', `op id ${opId} was already used by ${applied.op}`);
      return applied.result as OpResult<N>;
    }
    const result = apply(args);
    world.appliedOps.record(opId, name, result);
    return result;
  };
}

export function playerHandlers(world: World): PlayerHandlers {
  return {
    'players.list': (args) => listPlayers(world, args),
    'players.online': (args) => onlineSnapshot(world, args),
    'players.get': (args) => getProfile(world, args),
    'players.inventory': (args) => getInventory(world, args),
    'players.moderation': (args) => getModeration(world, args),
    'players.violations': (args) => listViolations(world, args),
    'players.ips': (args) => getIps(world, args),
    'players.ban': oncePerOpId(world, 'players.ban', (args) => banPlayer(world, args)),
    'players.unban': oncePerOpId(world, 'players.unban', (args) => unbanPlayer(world, args)),
    'players.mute': oncePerOpId(world, 'players.mute', (args) => mutePlayer(world, args)),
    'players.unmute': oncePerOpId(world, 'players.unmute', (args) => unmutePlayer(world, args)),
    'players.link': oncePerOpId(world, 'players.link', (args) => linkPlayer(world, args)),
    'players.unlink': oncePerOpId(world, 'players.unlink', (args) => unlinkPlayer(world, args)),
  };
}
