/** What several verbs share: naming players, finding the subject player, listing lines. */
import type { Player, Position } from '../world/index.ts';
import { refused, type VerbOutcome, type VerbRun } from './types.ts';

/** List output shows at most this many lines, then how many more there were. */
export const LIST_LINES = 50;

export function playerLabel(player: Player): string {
  return `${player.char_name} (${player.platform_id})`;
}

export function positionText(position: Position): string {
  return `X=${position.x} Y=${position.y} Z=${position.z}`;
}

/** The player the subject names, or the game's refusal when nobody has that platform id. */
export function subjectPlayer(run: VerbRun): Player | VerbOutcome {
  const subject = run.subject;
  if (subject?.kind !== 'player') return refused(`${run.entry.verb} needs a player target`);
  return subject.player ?? refused(`Player ${subject.platformId} not found`);
}

/** The subject player, who must be connected. */
export function onlineSubject(run: VerbRun): Player | VerbOutcome {
  const player = subjectPlayer(run);
  if (!isPlayer(player)) return player;
  return player.live === null ? refused(`Player ${playerLabel(player)} is not online`) : player;
}

export function isPlayer(value: Player | VerbOutcome): value is Player {
  return 'platform_id' in value;
}

/** `title`, then up to LIST_LINES lines, then `… and N more`. */
export function listText(title: string, lines: readonly string[]): string {
  const shown = lines.slice(0, LIST_LINES);
  const more = lines.length - shown.length;
  return [title, ...shown, ...(more > 0 ? [`... and ${more} more`] : [])].join('\n');
}

/** Where the subject is: the position given, or the (connected) player's. */
export function subjectPosition(run: VerbRun): Position | VerbOutcome {
  if (run.subject?.kind === 'position') return run.subject.position;
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  return { ...(player.live as NonNullable<Player['live']>).position };
}

export function isPosition(value: Position | VerbOutcome): value is Position {
  return 'x' in value;
}
