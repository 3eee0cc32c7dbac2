/**
 * What the player handlers share: resolving a `PlayerRef` (docs/players.md#refs) to a player or a
 * moderation record, the moderation state view with expiry applied, and the world clock.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { ModerationSource } from '../../protocol/ops/players.ts';
import type { OpHandlers, OpName } from '../../protocol/ops/index.ts';
import type { ModerationRecord, ModerationState, Moderator, Player, World } from '../world/index.ts';
import { CLEAN_BAN, CLEAN_MUTE, MINUTE, SECOND } from '../world/index.ts';

/** The parsed arguments of op N, as its handler receives them. */
export type ArgsOf<N extends OpName> = Parameters<OpHandlers[N]>[0];

export type PlayerRef = ArgsOf<'players.get'>['ref'];

/** Who issued a write, as the op's `actor` names them. */
export interface ActorArg {
  key_id: string;
  name: string;
  platform_id: string | null;
  social_id: string | null;
  /** Where the write was made (`group` for moderation only); absent from a daemon that sends none (PROTOCOL §6.6). */
  source?: ModerationSource;
}

/** Where a write was made, as the game records it: the daemon's `source`, `api` when it sent none. */
export function sourceOf<S extends ModerationSource>(actor: { source?: S }): S | 'api' {
  return actor.source ?? 'api';
}

/** The world clock, to the second: moderation and violation times are ISO-8601 seconds. */
export function nowOf(world: World): number {
  return Math.floor(world.clock() / SECOND) * SECOND;
}

/** The player a ref names, or undefined. */
export function findPlayer(world: World, ref: PlayerRef): Player | undefined {
  return 'platform_id' in ref
    ? world.players.byPlatformId(ref.platform_id)
    : world.players.bySocialId(ref.social_id);
}

export function notFound(ref: PlayerRef): OpError {
  return 'platform_id' in ref
    ? new OpError('not_found', `no player with platform id ${ref.platform_id} has joined this server`)
    : new OpError('not_found', `social id ${ref.social_id} is not linked to any player`);
}

/** The player a ref names; `not_found` for an unknown platform id or an unlinked social id. */
export function resolvePlayer(world: World, ref: PlayerRef): Player {
  const player = findPlayer(world, ref);
  if (player === undefined) throw notFound(ref);
  return player;
}

/**
 * The moderation record a ref names: a player's or, for a platform id that never joined, its
 * moderation-list entry; undefined when there is neither.
 */
export function findModeration(world: World, ref: PlayerRef): ModerationRecord | undefined {
  const player = findPlayer(world, ref);
  if (player !== undefined) return world.players.moderationOf(player);
  return 'platform_id' in ref ? world.players.moderationListed(ref.platform_id) : undefined;
}

/**
 * The record a ban or mute writes to (docs/players.md#players-who-never-joined: both accept a well-formed platform
 * id that never joined): the player's, else the id's moderation-list entry, created on first use.
 * An unlinked `social:` ref is `not_found`.
 */
export function moderationTarget(world: World, ref: PlayerRef): ModerationRecord {
  const record =
    findModeration(world, ref) ??
    ('platform_id' in ref ? world.players.moderationListEntry(ref.platform_id) : undefined);
  if (record === undefined) throw notFound(ref);
  return record;
}

export function resolveModeration(world: World, ref: PlayerRef): ModerationRecord {
  const record = findModeration(world, ref);
  if (record === undefined) throw notFound(ref);
  return record;
}

/**
 * Lifts a temporary ban or mute whose time has run out. Expiry is evaluated whenever a player op
 * reads or writes the state, and the clean state is written back then (the game logs nothing).
 */
export function settleExpiry(record: ModerationRecord, at: number): void {
  const { ban, mute } = record.moderation;
  if (ban.banned && !ban.permanent && ban.expires_at !== null && Date.parse(ban.expires_at) <= at) {
    record.moderation.ban = CLEAN_BAN;
  }
  if (
    mute.muted &&
    !mute.permanent &&
    mute.muted_at !== null &&
    mute.duration_minutes !== null &&
    Date.parse(mute.muted_at) + mute.duration_minutes * MINUTE <= at
  ) {
    record.moderation.mute = CLEAN_MUTE;
  }
}

/** Spec "Moderation state" of a record as of now (expired bans and mutes read as lifted). */
export function moderationView(world: World, record: ModerationRecord): ModerationState {
  settleExpiry(record, nowOf(world));
  const { platform_id, social_id } = record.identity;
  return { player: { platform_id, social_id }, ban: record.moderation.ban, mute: record.moderation.mute };
}

/** The moderator object of a write: the key owner as the op's actor names them. */
export function moderatorOf(actor: ActorArg): Moderator {
  return { platform_id: actor.platform_id, social_id: actor.social_id, name: actor.name };
}

export function sameModerator(a: Moderator | null, b: Moderator): boolean {
  return a !== null && a.platform_id === b.platform_id && a.social_id === b.social_id && a.name === b.name;
}
