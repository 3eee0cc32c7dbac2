/**
 * Moderation verbs: Kick, Ban, Unban, Mute, Unmute. Bans and mutes go through the same game logic
 * as the moderation ops (handlers/players-moderation.ts), so they change the player's moderation
 * state and violation history exactly as POST /v1/players/{ref}/ban would, attributed to the
 * command's actor. Ban takes hours (omitted: permanent); Mute takes minutes, rounded up to whole
 * hours by the game, on every channel. None needs a connected player, and all four accept a
 * platform id that never joined (the game's moderation list), as the ops do.
 */
import { OpError } from '../../protocol/ops/index.ts';
import { findModeration, moderationView } from '../handlers/players-common.ts';
import { banPlayer, mutePlayer, unbanPlayer, unmutePlayer } from '../handlers/players-moderation.ts';
import { MUTE_CHANNELS, sqlDateTime } from '../world/index.ts';
import { ok, refused, type VerbBehaviour, type VerbOutcome, type VerbRun } from './types.ts';
import { isPlayer, onlineSubject, playerLabel } from './verb-helpers.ts';

/** An OpError from the shared moderation logic is the game refusing: its message is the answer. */
function refusing(apply: () => VerbOutcome): VerbOutcome {
  try {
    return apply();
  } catch (error) {
    if (error instanceof OpError) return refused(error.message);
    throw error;
  }
}

function platformRef(run: VerbRun): { platform_id: string } {
  if (run.subject?.kind !== 'player') throw new Error('target mode checked by the engine');
  return { platform_id: run.subject.platformId };
}

function label(run: VerbRun): string {
  const subject = run.subject;
  if (subject?.kind !== 'player') return '';
  return subject.player === undefined ? subject.platformId : playerLabel(subject.player);
}

const kick: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  run.world.players.setOnline(player, null);
  player.last_seen = sqlDateTime(run.at);
  const reason = run.args.has('reason') ? `: ${run.args.text('reason')}` : '';
  return ok(`Kicked ${playerLabel(player)}${reason}`);
};

const ban: VerbBehaviour = (run) =>
  refusing(() => {
    const hours = run.args.has('hours') ? run.args.number('hours') : null;
    if (hours !== null && hours < 1)
      return refused('Ban hours must be 1 or more; omit them for a permanent ban');
    banPlayer(run.world, {
      ref: platformRef(run),
      reason: `Banned with #${run.entry.verb}`,
      permanent: hours === null,
      duration: hours,
      duration_unit: 'hours',
      squad_id: null,
      actor: run.request.actor,
    });
    return ok(`Banned ${label(run)} ${hours === null ? 'permanently' : `for ${hours} hour(s)`}`);
  });

/** The ban or mute in force now (an expired one reads as lifted). */
function inForce(run: VerbRun, what: 'ban' | 'mute'): boolean {
  const record = findModeration(run.world, platformRef(run));
  if (record === undefined) return false;
  const state = moderationView(run.world, record);
  return what === 'ban' ? state.ban.banned : state.mute.muted;
}

const unban: VerbBehaviour = (run) =>
  refusing(() => {
    const wasBanned = inForce(run, 'ban');
    unbanPlayer(run.world, { ref: platformRef(run), actor: run.request.actor });
    return ok(wasBanned ? `Unbanned ${label(run)}` : `${label(run)} is not banned`);
  });

const mute: VerbBehaviour = (run) => {
  const minutes = run.args.number('minutes');
  if (minutes < 1) return refused('Mute minutes must be 1 or more');
  return refusing(() => {
    const state = mutePlayer(run.world, {
      ref: platformRef(run),
      reason: `Muted with #${run.entry.verb}`,
      permanent: false,
      duration: minutes,
      duration_unit: 'minutes',
      channels: [...MUTE_CHANNELS],
      actor: run.request.actor,
    });
    return ok(`Muted ${label(run)} for ${state.mute.duration_minutes ?? minutes} minutes`);
  });
};

const unmute: VerbBehaviour = (run) =>
  refusing(() => {
    const wasMuted = inForce(run, 'mute');
    unmutePlayer(run.world, { ref: platformRef(run), actor: run.request.actor });
    return ok(wasMuted ? `Unmuted ${label(run)}` : `${label(run)} is not muted`);
  });

export const MODERATION_VERBS: Readonly<Record<string, VerbBehaviour>> = {
  Kick: kick,
  Ban: ban,
  Unban: unban,
  Mute: mute,
  Unmute: unmute,
};
