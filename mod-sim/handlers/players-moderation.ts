/**
 * Moderation writes (docs/players.md): ban, unban, mute, unmute.
 * Each answers with the subject's moderation state and logs what it changed in the violation
 * history (type ban or mute, source `api`, issued by the key owner). A write that would leave the
 * state as it is (a repeated ban or mute, an unban of a player who is not banned) changes nothing
 * and logs nothing, so every write converges and is idempotent. All four accept a well-formed
 * platform id that never joined (its moderation-list entry); an unlinked `social:` ref is
 * `not_found`.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type {
  ModerationRecord,
  ModerationState,
  Moderator,
  MuteChannel,
  Squad,
  Violation,
  World,
} from '../world/index.ts';
import type { ModerationSource } from '../../protocol/ops/players.ts';
import { CLEAN_BAN, CLEAN_MUTE, MINUTE, isoDateTime } from '../world/index.ts';
import {
  type ArgsOf,
  findModeration,
  moderationView,
  moderationTarget,
  moderatorOf,
  notFound,
  nowOf,
  type PlayerRef,
  sameModerator,
  settleExpiry,
  sourceOf,
} from './players-common.ts';
import { BAN_CAPS, MUTE_CAPS, requestedMinutes, roundMuteMinutes } from './players-durations.ts';

interface BanTerms {
  reason: string;
  /** Null when permanent. */
  minutes: number | null;
  by: Moderator;
  /** Where the ban was made: the violation's source. */
  source: ModerationSource;
  /** The squad a squad ban named, else null. */
  squadId: number | null;
}

function findSquad(world: World, squadId: string): Squad {
  const id = Number(squadId);
  const squad = Number.isSafeInteger(id) ? world.squads.get(id) : undefined;
  if (squad === undefined) throw new OpError('not_found', `no squad with id ${squadId}`);
  return squad;
}

/** True when `current` is already the ban these terms would set. */
function sameBan(record: ModerationRecord, terms: BanTerms): boolean {
  const ban = record.moderation.ban;
  if (!ban.banned || ban.reason !== terms.reason || !sameModerator(ban.banned_by, terms.by)) return false;
  if (terms.minutes === null) return ban.permanent;
  if (ban.permanent || ban.expires_at === null || ban.banned_at === null) return false;
  return Date.parse(ban.expires_at) - Date.parse(ban.banned_at) === terms.minutes * MINUTE;
}

/** Bans one subject (unless it already is, on the same terms) and logs it. */
function applyBan(world: World, record: ModerationRecord, terms: BanTerms, at: number): void {
  settleExpiry(record, at);
  if (sameBan(record, terms)) return;
  const { reason, minutes, by, squadId } = terms;
  const bannedAt = isoDateTime(at);
  const expiresAt = minutes === null ? null : isoDateTime(at + minutes * MINUTE);
  record.moderation.ban = {
    banned: true,
    reason,
    permanent: minutes === null,
    expires_at: expiresAt,
    banned_at: bannedAt,
    banned_by: by,
  };
  record.violations.insert({
    id: world.players.nextViolationId(),
    type: 'ban',
    action: minutes === null ? 'ban' : 'tempban',
    source: terms.source,
    reason,
    issued_by: by,
    applied_at: bannedAt,
    expires_at: expiresAt,
    duration_sec: minutes === null ? 0 : minutes * 60,
    metadata: squadId === null ? { squad_ban: false } : { squad_ban: true, squad_id: squadId },
  });
  world.events.emit('player.banned', { player: record.identity, ban: record.moderation.ban });
}

/**
 * `players.ban`: bans the player (a platform id that never joined goes on the game's moderation
 * list) and, with `squad_id`, every member of that squad. Everything is checked before anything
 * is applied: a bad duration or unknown squad bans nobody.
 */
export function banPlayer(world: World, args: ArgsOf<'players.ban'>): ModerationState {
  const minutes = requestedMinutes(args, BAN_CAPS);
  const squad = args.squad_id === null ? undefined : findSquad(world, args.squad_id);
  const record = moderationTarget(world, args.ref);
  const terms: BanTerms = {
    reason: args.reason,
    minutes,
    by: moderatorOf(args.actor),
    source: sourceOf(args.actor),
    squadId: squad?.id ?? null,
  };
  const at = nowOf(world);
  applyBan(world, record, terms, at);
  for (const { player } of squad?.members ?? []) {
    if (player.refs.identity !== record.identity)
      applyBan(world, world.players.moderationOf(player), terms, at);
  }
  return moderationView(world, record);
}

/**
 * The answer to an unban or unmute when the game holds no record: a well-formed platform id it
 * has never seen succeeds with a clean state (the mirror of a ban or mute accepting one) and
 * writes nothing; an unlinked `social:` ref is `not_found`.
 */
function nothingToLift(ref: PlayerRef): ModerationState {
  if ('social_id' in ref) throw notFound(ref);
  return { player: { platform_id: ref.platform_id, social_id: null }, ban: CLEAN_BAN, mute: CLEAN_MUTE };
}

/** `players.unban`: lifts the ban and logs an `unban` when there was one; succeeds when not banned. */
export function unbanPlayer(world: World, args: ArgsOf<'players.unban'>): ModerationState {
  const record = findModeration(world, args.ref);
  if (record === undefined) return nothingToLift(args.ref);
  const at = nowOf(world);
  settleExpiry(record, at);
  if (record.moderation.ban.banned) {
    const by = moderatorOf(args.actor);
    record.moderation.ban = CLEAN_BAN;
    record.violations.insert(lifted(world, 'ban', { by, source: sourceOf(args.actor) }, at, {}));
    world.events.emit('player.unbanned', { player: record.identity, ban: CLEAN_BAN, unbanned_by: by });
  }
  return moderationView(world, record);
}

/** A violation entry for a lifted ban or mute. */
function lifted(
  world: World,
  type: 'ban' | 'mute',
  { by, source }: { by: Moderator; source: ModerationSource },
  at: number,
  metadata: Record<string, string>,
): Violation {
  return {
    id: world.players.nextViolationId(),
    type,
    action: type === 'ban' ? 'unban' : 'unmute',
    source,
    reason: type === 'ban' ? 'Ban lifted' : 'Mute lifted',
    issued_by: by,
    applied_at: isoDateTime(at),
    expires_at: null,
    duration_sec: 0,
    metadata,
  };
}

function sameChannels(a: readonly MuteChannel[], b: readonly MuteChannel[]): boolean {
  return a.length === b.length && a.every((channel) => b.includes(channel));
}

/**
 * `players.mute`: mutes a player on the given channels (duplicates dropped, order kept), a
 * temporary mute rounded up to whole hours. Logged once per channel with `metadata.channel`.
 */
export function mutePlayer(world: World, args: ArgsOf<'players.mute'>): ModerationState {
  const requested = requestedMinutes(args, MUTE_CAPS);
  const minutes = requested === null ? null : roundMuteMinutes(requested);
  const record = moderationTarget(world, args.ref);
  const channels = [...new Set(args.channels)];
  const at = nowOf(world);
  settleExpiry(record, at);
  const mute = record.moderation.mute;
  if (mute.muted && mute.duration_minutes === minutes && sameChannels(mute.channels, channels)) {
    return moderationView(world, record);
  }
  const mutedAt = isoDateTime(at);
  record.moderation.mute = {
    muted: true,
    permanent: minutes === null,
    muted_at: mutedAt,
    duration_minutes: minutes,
    channels,
  };
  const by = moderatorOf(args.actor);
  for (const channel of channels) {
    record.violations.insert({
      id: world.players.nextViolationId(),
      type: 'mute',
      action: 'mute',
      source: sourceOf(args.actor),
      reason: args.reason,
      issued_by: by,
      applied_at: mutedAt,
      expires_at: minutes === null ? null : isoDateTime(at + minutes * MINUTE),
      duration_sec: minutes === null ? 0 : minutes * 60,
      metadata: { channel },
    });
  }
  const muted = { player: record.identity, mute: record.moderation.mute, reason: args.reason, muted_by: by };
  world.events.emit('player.muted', muted);
  return moderationView(world, record);
}

/** `players.unmute`: lifts the mute, logging an `unmute` per channel it covered; succeeds when not muted. */
export function unmutePlayer(world: World, args: ArgsOf<'players.unmute'>): ModerationState {
  const record = findModeration(world, args.ref);
  if (record === undefined) return nothingToLift(args.ref);
  const at = nowOf(world);
  settleExpiry(record, at);
  const { mute } = record.moderation;
  if (mute.muted) {
    record.moderation.mute = CLEAN_MUTE;
    const by = moderatorOf(args.actor);
    const issued = { by, source: sourceOf(args.actor) };
    for (const channel of mute.channels)
      record.violations.insert(lifted(world, 'mute', issued, at, { channel }));
    world.events.emit('player.unmuted', { player: record.identity, mute: CLEAN_MUTE, unmuted_by: by });
  }
  return moderationView(world, record);
}
