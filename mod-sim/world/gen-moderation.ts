/**
 * Moderation: current ban and mute states and the violation history that explains them.
 *
 * Our vocabulary for the values the spec leaves open: `type` is ban, mute or trap; `action` is
 * ban, tempban, mute or triggered; `source` is panel, api, ingame, social, anticheat or trap.
 * A mute on several channels is logged once per channel with `metadata.channel`; expires_at is
 * null for permanent bans and trap events, and duration_sec is 0 for them.
 */
import { weightTable } from './rng.ts';
import type { Rng } from './rng.ts';
import { DAY, HOUR, MINUTE, isoDateTime, parseSqlDateTime } from './time.ts';
import type { Moderator, MuteChannel, Player, Violation, ViolationType } from './types.ts';
import { MUTE_CHANNELS } from './types.ts';
import { SYSTEM_MODERATORS } from './vocab/names.ts';

const BAN_REASONS = ['Cheating', 'Exploiting a bug', 'Griefing', 'Toxic behaviour', 'Ban evasion', 'Duping'];
const MUTE_REASONS = ['Spam', 'Insults', 'Advertising', 'Hate speech', 'Mic spam'];
const PAST_KINDS = weightTable<ViolationType>([
  ['trap', 4],
  ['mute', 3],
  ['ban', 2],
]);
const TRAP_ZONES = ['Military Base A4', 'Airfield', 'Bunker C2', 'Admin island', 'Event zone'];

/** Shared moderator objects for entries without a moderator platform id. */
export const SYSTEM_MODERATOR_REFS: readonly Moderator[] = SYSTEM_MODERATORS.map((name) => ({
  platform_id: null,
  social_id: null,
  name,
}));

interface Draft {
  player: Player;
  at: number;
  violation: Omit<Violation, 'id'>;
}

function pickModerator(rng: Rng, admins: readonly Player[]): Moderator {
  if (admins.length > 0 && rng.chance(0.75)) return rng.pick(admins).refs.moderator;
  return rng.pick(SYSTEM_MODERATOR_REFS);
}

function banDraft(rng: Rng, player: Player, at: number, durationMs: number | null, by: Moderator): Draft {
  const permanent = durationMs === null;
  return {
    player,
    at,
    violation: {
      type: 'ban',
      action: permanent ? 'ban' : 'tempban',
      source:
        by.platform_id === null ? rng.pick(['anticheat', 'panel']) : rng.pick(['panel', 'api', 'ingame']),
      reason: rng.pick(BAN_REASONS),
      issued_by: by,
      applied_at: isoDateTime(at),
      expires_at: permanent ? null : isoDateTime(at + durationMs),
      duration_sec: permanent ? 0 : durationMs / 1000,
      metadata: { squad_ban: false },
    },
  };
}

function muteDrafts(rng: Rng, player: Player, at: number, minutes: number | null, by: Moderator): Draft[] {
  const channels = MUTE_CHANNELS.filter(() => rng.chance(0.6));
  const reason = rng.pick(MUTE_REASONS);
  const source = rng.pick(['panel', 'ingame', 'social']);
  return (channels.length > 0 ? channels : (['Global'] as MuteChannel[])).map((channel) => ({
    player,
    at,
    violation: {
      type: 'mute' as ViolationType,
      action: 'mute',
      source,
      reason,
      issued_by: by,
      applied_at: isoDateTime(at),
      expires_at: minutes === null ? null : isoDateTime(at + minutes * MINUTE),
      duration_sec: minutes === null ? 0 : minutes * 60,
      metadata: { channel },
    },
  }));
}

function trapDraft(rng: Rng, player: Player, at: number): Draft {
  return {
    player,
    at,
    violation: {
      type: 'trap',
      action: 'triggered',
      source: 'trap',
      reason: 'Entered a restricted area',
      issued_by: SYSTEM_MODERATOR_REFS[0] as Moderator,
      applied_at: isoDateTime(at),
      expires_at: null,
      duration_sec: 0,
      metadata: { zone: rng.pick(TRAP_ZONES), trap_id: rng.int(1, 40) },
    },
  };
}

/** Current ban, applied within the last 30 days and still running. Sets the player's state. */
function applyCurrentBan(rng: Rng, player: Player, now: number, admins: readonly Player[]): Draft {
  const at = now - rng.int(1, 30 * 24) * HOUR;
  const permanent = rng.chance(0.35);
  const durationMs = permanent ? null : now - at + rng.int(1, 60) * DAY;
  const draft = banDraft(rng, player, at, durationMs, pickModerator(rng, admins));
  const { violation } = draft;
  player.moderation.ban = {
    banned: true,
    reason: violation.reason,
    permanent,
    expires_at: violation.expires_at,
    banned_at: violation.applied_at,
    banned_by: violation.issued_by,
  };
  return draft;
}

/** Current mute, rounded to whole hours as the game does. Sets the player's state. */
function applyCurrentMute(rng: Rng, player: Player, now: number, admins: readonly Player[]): Draft[] {
  const at = now - rng.int(1, 48 * 60) * MINUTE;
  const permanent = rng.chance(0.2);
  const minutes = permanent ? null : Math.ceil((now - at) / HOUR + rng.int(1, 72)) * 60;
  const drafts = muteDrafts(rng, player, at, minutes, pickModerator(rng, admins));
  const first = drafts[0]?.violation;
  player.moderation.mute = {
    muted: true,
    permanent,
    muted_at: first?.applied_at ?? null,
    duration_minutes: minutes,
    channels: drafts.map((draft) => draft.violation.metadata.channel as MuteChannel),
  };
  return drafts;
}

/** Expired bans and mutes and trap events from before the current state. */
function pastDrafts(
  rng: Rng,
  player: Player,
  createdAt: number,
  now: number,
  admins: readonly Player[],
): Draft[] {
  const drafts: Draft[] = [];
  const count = rng.int(1, 3);
  for (let i = 0; i < count; i++) {
    const at = Math.floor(createdAt + (now - 31 * DAY - createdAt) * rng.float());
    if (at <= createdAt) continue;
    const kind = rng.weighted(PAST_KINDS);
    if (kind === 'trap') drafts.push(trapDraft(rng, player, at));
    else if (kind === 'mute')
      drafts.push(...muteDrafts(rng, player, at, rng.int(1, 24) * 60, pickModerator(rng, admins)));
    else drafts.push(banDraft(rng, player, at, rng.int(1, 14) * DAY, pickModerator(rng, admins)));
  }
  return drafts;
}

/**
 * Bans ~3% and mutes ~4% of players (only offline players are banned) and writes a history for
 * them and ~6% of others. Violation ids follow applied_at. Returns each player's history, newest
 * first, keyed by ordinal; players without history are absent.
 */
export function generateModeration(
  rng: Rng,
  players: readonly Player[],
  now: number,
): Map<number, Violation[]> {
  const admins = players.filter((player) => player.is_admin);
  const drafts: Draft[] = [];
  for (const player of players) {
    const createdAt = parseSqlDateTime(player.created_at);
    if (!player.online && rng.chance(0.03)) drafts.push(applyCurrentBan(rng, player, now, admins));
    if (rng.chance(0.04)) drafts.push(...applyCurrentMute(rng, player, now, admins));
    const flagged = player.moderation.ban.banned || player.moderation.mute.muted;
    if (rng.chance(flagged ? 0.5 : 0.06)) drafts.push(...pastDrafts(rng, player, createdAt, now, admins));
  }
  drafts.sort((a, b) => a.at - b.at || a.player.ordinal - b.player.ordinal);
  const history = new Map<number, Violation[]>();
  drafts.forEach((draft, index) => {
    const list = history.get(draft.player.ordinal) ?? [];
    const v = draft.violation;
    list.unshift({
      id: index + 1,
      type: v.type,
      action: v.action,
      source: v.source,
      reason: v.reason,
      issued_by: v.issued_by,
      applied_at: v.applied_at,
      expires_at: v.expires_at,
      duration_sec: v.duration_sec,
      metadata: v.metadata,
    });
    history.set(draft.player.ordinal, list);
  });
  return history;
}
