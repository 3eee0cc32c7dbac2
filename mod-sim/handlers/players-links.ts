/**
 * Social link writes (docs/players.md#players-who-never-joined). Both go through the
 * world's `setSocialLink`, so every record that shows the player (owner objects, delivery rows,
 * moderators) sees the change at once.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { PlayerIdentity, World } from '../world/index.ts';
import { type ArgsOf, notFound, resolvePlayer } from './players-common.ts';

interface LinkResult {
  player: PlayerIdentity;
}

/**
 * `players.link`: the platform player must have joined (`not_found`; a record a coin credit
 * created is not a join); `conflict` when it is linked already (to any social id, the same one
 * included) or the social id belongs to another player.
 */
export function linkPlayer(world: World, args: ArgsOf<'players.link'>): LinkResult {
  const { platform_id, social_id } = args;
  const player = world.players.byPlatformId(platform_id);
  if (player === undefined || !world.players.hasJoined(player)) throw notFound({ platform_id });
  if (player.social_id !== null) {
    throw new OpError('conflict', `platform id ${platform_id} is already linked to a social account`);
  }
  if (world.players.bySocialId(social_id) !== undefined) {
    throw new OpError('conflict', `social id ${social_id} is already linked to another player`);
  }
  world.players.setSocialLink(player, social_id);
  return { player: { platform_id, social_id } };
}

/**
 * `players.unlink`: by platform ref it succeeds whether or not the player is linked; by social
 * ref the id must resolve (`not_found` otherwise, so a repeat is `not_found`).
 */
export function unlinkPlayer(world: World, args: ArgsOf<'players.unlink'>): LinkResult {
  const player = resolvePlayer(world, args.ref);
  if (player.social_id !== null) world.players.setSocialLink(player, null);
  return { player: { platform_id: player.platform_id, social_id: null } };
}
