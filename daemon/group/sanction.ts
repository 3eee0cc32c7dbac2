/**
 * One sanction of a group (docs/group.md, "What is shared"): a ban, unban, mute or unmute of a
 * platform id, as this daemon's outbox keeps it and the group's log stores it. Made from a
 * moderation op's answer (the /v1 routes and the admin game routes: `fromOp`) or from the mod's
 * `player.banned`/`…unmuted` event (`fromEvent`), and turned back into the op that applies it on
 * another server's game with the time it has left (`applyArgs`).
 *
 * A sanction made on this server is seen twice (the op's answer, then the mod's event for the
 * same change; or only the event, for a ban made in game, or a squad member's): `signature` names
 * the change itself, so the second sighting is recognised (group-capture.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { BAN_CAPS, MUTE_CAPS, MUTE_CHANNELS } from '../../protocol/ops/players.ts';
import type { SanctionKind as SharedKind } from '../config/config.ts';

export const SANCTION_ACTIONS = ['ban', 'unban', 'mute', 'unmute'] as const;
export type SanctionAction = (typeof SANCTION_ACTIONS)[number];

export type MuteChannel = (typeof MUTE_CHANNELS)[number];

/** Who made it and where: the key or admin (api, panel) or the game's moderator (game). */
export interface SanctionActor {
  name: string;
  key_id: string | null;
  platform_id: string | null;
  social_id: string | null;
  /** api, panel (made through this daemon) or game (the mod reported it). */
  source: 'api' | 'panel' | 'game';
}

/** A sanction as the outbox keeps it and publish() writes it. */
export interface Sanction {
  /**
   * Unique per origin server: a re-publish after a crash is the same row (UNIQUE in the group).
   * For a ban or mute, a hash of its signature (`localIdOf`); random for an unban or unmute.
   */
  local_id: string;
  action: SanctionAction;
  platform_id: string;
  actor: SanctionActor;
  /** The ban's or mute's reason; null for unban and unmute. */
  reason: string | null;
  /** When it ends (ISO 8601); null when permanent, and for unban and unmute. */
  expires_at: string | null;
  /** A mute's channels; null otherwise. */
  channels: MuteChannel[] | null;
  /** When it was made on its origin server (ISO 8601). */
  created_at: string;
}

/** The config's kind (`bans`, `mutes`) an action belongs to: an unban is shared with the bans. */
export function kindOf(action: SanctionAction): SharedKind {
  return action === 'ban' || action === 'unban' ? 'bans' : 'mutes';
}

/** The moderation state's parts a sanction is made from (ModerationState, the events' `ban`/`mute`). */
interface BanState {
  banned: boolean;
  reason: string;
  expires_at: string | null;
  banned_at: string | null;
}
interface MuteState {
  muted: boolean;
  muted_at: string | null;
  duration_minutes: number | null;
  channels: MuteChannel[];
}

interface Moderator {
  name: string;
  platform_id: string | null;
  social_id: string | null;
}

/** What a change is, whichever way it was seen: the op's answer or the mod's event. */
export function signature(action: SanctionAction, platformId: string, at: string | null): string {
  return `${action} ${platformId} ${at ?? ''}`;
}

/**
 * The local id of the change a signature names: the same change seen twice, before or after a
 * restart, is one row of the group's log. Only for a change with a time of its own (a ban or
 * mute): every unban of a player signs alike, so an unban's id is random, and its second
 * sighting is recognised by the note the outbox keeps for a few minutes (docs/group.md).
 */
export function localIdOf(signature: string): string {
  return `sig-${createHash('sha256').update(signature).digest('hex').slice(0, 32)}`;
}

/** A sanction and the signature of the change it records. */
export interface Seen {
  sanction: Sanction;
  signature: string;
}

/** A moderation op's successful answer as a sanction; null for another op or a write that set nothing. */
export function fromOp(
  op: string,
  args: {
    ref: unknown;
    actor: {
      key_id: string;
      name: string;
      platform_id: string | null;
      social_id: string | null;
      source?: string;
    };
  },
  result: { player: { platform_id: string }; ban: BanState; mute: MuteState },
  now: Date,
): Seen | null {
  const action = SANCTION_ACTIONS.find((name) => `players.${name}` === op);
  if (action === undefined) return null;
  const { actor } = args;
  const by: SanctionActor = {
    name: actor.name,
    key_id: actor.key_id,
    platform_id: actor.platform_id,
    social_id: actor.social_id,
    source: actor.source === 'panel' ? 'panel' : 'api',
  };
  return fromState(action, result.player.platform_id, result, by, now);
}

/** A mod's moderation event as a sanction; null for another type. */
export function fromEvent(type: string, data: Readonly<Record<string, unknown>>, now: Date): Seen | null {
  const action = EVENT_ACTIONS[type];
  if (action === undefined) return null;
  const player = data['player'] as { platform_id: string };
  const moderator = (data['unbanned_by'] ??
    data['muted_by'] ??
    data['unmuted_by'] ??
    banModerator(data)) as Moderator | null;
  const by: SanctionActor = {
    name: moderator?.name ?? 'game',
    key_id: null,
    platform_id: moderator?.platform_id ?? null,
    social_id: moderator?.social_id ?? null,
    source: 'game',
  };
  const state = {
    ban: data['ban'] as BanState,
    mute: data['mute'] as MuteState,
    reason: typeof data['reason'] === 'string' ? data['reason'] : undefined,
  };
  return fromState(action, player.platform_id, state, by, now);
}

const EVENT_ACTIONS: Readonly<Record<string, SanctionAction>> = {
  'player.banned': 'ban',
  'player.unbanned': 'unban',
  'player.muted': 'mute',
  'player.unmuted': 'unmute',
};

function banModerator(data: Readonly<Record<string, unknown>>): Moderator | null {
  const ban = data['ban'] as { banned_by?: Moderator | null } | undefined;
  return ban?.banned_by ?? null;
}

function fromState(
  action: SanctionAction,
  platformId: string,
  state: { ban?: BanState; mute?: MuteState; reason?: string | undefined },
  actor: SanctionActor,
  now: Date,
): Seen | null {
  const base = {
    local_id: randomUUID(),
    action,
    platform_id: platformId,
    actor,
    created_at: now.toISOString(),
  };
  if (action === 'ban') {
    const ban = state.ban;
    if (!ban?.banned) return null;
    const signed = signature(action, platformId, ban.banned_at);
    const sanction = {
      ...base,
      ...(ban.banned_at === null ? {} : { local_id: localIdOf(signed) }),
      reason: ban.reason,
      expires_at: ban.expires_at,
      channels: null,
    };
    return { sanction, signature: signed };
  }
  if (action === 'mute') {
    const mute = state.mute;
    if (!mute?.muted) return null;
    const expires =
      mute.duration_minutes === null || mute.muted_at === null
        ? null
        : new Date(Date.parse(mute.muted_at) + mute.duration_minutes * 60_000).toISOString();
    const signed = signature(action, platformId, mute.muted_at);
    const sanction = {
      ...base,
      ...(mute.muted_at === null ? {} : { local_id: localIdOf(signed) }),
      reason: state.reason ?? null,
      expires_at: expires,
      channels: [...mute.channels],
    };
    return { sanction, signature: signed };
  }
  return {
    sanction: { ...base, reason: null, expires_at: null, channels: null },
    signature: signature(action, platformId, null),
  };
}

/** The op another server's game applies a sanction with, or null when a ban or mute has run out. */
export function applyArgs(
  row: Pick<Sanction, 'action' | 'platform_id' | 'reason' | 'expires_at' | 'channels'>,
  actor: { key_id: string; name: string; platform_id: string | null; social_id: string | null },
  now: number,
): { op: `players.${SanctionAction}`; args: Record<string, unknown> } | null {
  const ref = { platform_id: row.platform_id };
  const by = { ...actor, source: 'group' as const };
  if (row.action === 'unban' || row.action === 'unmute')
    return { op: `players.${row.action}`, args: { ref, actor: by } };
  const minutes = remainingMinutes(
    row.expires_at,
    now,
    row.action === 'ban' ? BAN_CAPS.minutes : MUTE_CAPS.minutes,
  );
  if (minutes === 0) return null;
  const duration = {
    permanent: minutes === null,
    duration: minutes,
    duration_unit: 'minutes',
    reason: row.reason ?? 'No reason provided',
  };
  if (row.action === 'ban')
    return { op: 'players.ban', args: { ref, ...duration, squad_id: null, actor: by } };
  return {
    op: 'players.mute',
    args: { ref, ...duration, channels: row.channels ?? [...MUTE_CHANNELS], actor: by },
  };
}

/**
 * What is left of a sanction, in whole minutes rounded up (the unit the game takes: a ban made for
 * 24 hours 20 hours ago is 240 minutes), at most the cap; null when permanent, 0 when it has run out.
 */
export function remainingMinutes(expiresAt: string | null, now: number, cap: number): number | null {
  if (expiresAt === null) return null;
  const left = Date.parse(expiresAt) - now;
  if (left <= 0) return 0;
  return Math.min(cap, Math.ceil(left / 60_000));
}

/** A row of the group's sanctions log as the receiver reads it (group.ts's ROWS_QUERY). */
export interface SanctionRow {
  id: string;
  action: SanctionAction;
  kind: SharedKind;
  platform_id: string;
  origin_server: string;
  actor: Sanction['actor'];
  reason: string | null;
  expires_at: Date | null;
  channels: Sanction['channels'];
  superseded: boolean;
  created_at: Date;
  origin_name: string | null;
}
