/**
 * Player reads besides the roster (docs/players.md): the online snapshot, profile, inventory,
 * moderation state, violation history and IP history. An unknown platform id or an unlinked
 * social id is `not_found`; a platform id on the ban list (it never joined) answers the moderation
 * and violation reads, and is `not_found` for the rest.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpResult } from '../../protocol/ops/index.ts';
import type { OnlineRow, Player, World } from '../world/index.ts';
import { keysetPage, onlineRow, playerProfile } from '../world/index.ts';
import { type ArgsOf, moderationView, resolveModeration, resolvePlayer } from './players-common.ts';

/**
 * `players.online`: the connected players in roster order, or the one a platform or social id
 * names (an id that resolves to nobody, or to someone offline, gives an empty snapshot, never
 * `not_found`). `online` counts the rows in `data`.
 */
export function onlineSnapshot(world: World, args: ArgsOf<'players.online'>): OpResult<'players.online'> {
  let players: readonly Player[] = world.players.online();
  if (args.platform_id !== undefined || args.social_id !== undefined) {
    const byPlatform =
      args.platform_id === undefined ? undefined : world.players.byPlatformId(args.platform_id);
    const bySocial = args.social_id === undefined ? undefined : world.players.bySocialId(args.social_id);
    const player = byPlatform ?? bySocial;
    const agrees =
      player !== undefined &&
      (args.platform_id === undefined || byPlatform === player) &&
      (args.social_id === undefined || bySocial === player);
    players = agrees ? [player] : [];
  }
  const data: OnlineRow[] = [];
  for (const player of players) {
    const row = onlineRow(player);
    if (row !== undefined) data.push(row);
  }
  return { online: data.length, data };
}

/** `players.get`: the full profile (lifetime totals null on mods before 2.0.47: the world's gate). */
export function getProfile(world: World, args: ArgsOf<'players.get'>): OpResult<'players.get'> {
  return playerProfile(world, resolvePlayer(world, args.ref));
}

export function getInventory(world: World, args: ArgsOf<'players.inventory'>): OpResult<'players.inventory'> {
  return { items: world.players.inventory(resolvePlayer(world, args.ref)) };
}

/** `players.moderation`: the state as of the world clock (an expired ban or mute reads as lifted). */
export function getModeration(
  world: World,
  args: ArgsOf<'players.moderation'>,
): OpResult<'players.moderation'> {
  return moderationView(world, resolveModeration(world, args.ref));
}

const VIOLATION_POSITION = /^[1-9][0-9]{0,15}$/;

/** Reads a `next` this handler returned: a violation id in decimal. */
function violationAfter(after: string | null): number | undefined {
  if (after === null) return undefined;
  const id = Number(after);
  if (!VIOLATION_POSITION.test(after) || !Number.isSafeInteger(id)) {
    throw new OpError('invalid', `'${after}' is not a position in a violation history`);
  }
  return id;
}

/** `players.violations`: newest first, keyset by violation id; `next` is the last row's id. */
export function listViolations(
  world: World,
  args: ArgsOf<'players.violations'>,
): OpResult<'players.violations'> {
  const after = violationAfter(args.after);
  const record = resolveModeration(world, args.ref);
  const page = keysetPage(record.violations, { after, limit: args.limit });
  return { data: page.items, next: page.nextAfter === null ? null : String(page.nextAfter) };
}

/** `players.ips`: newest first, the current address first. */
export function getIps(world: World, args: ArgsOf<'players.ips'>): OpResult<'players.ips'> {
  return world.players.ipHistory(resolvePlayer(world, args.ref));
}
