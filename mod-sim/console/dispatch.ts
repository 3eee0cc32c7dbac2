/**
 * The checks every command passes before its verb runs, in the game's order: a known verb, not on
 * the operator's blocklist, within the executor's rank, aimed as the verb's target mode says,
 * arguments as the catalogue declares them, and a connected player to carry it when the verb
 * needs one. Each refusal is a normal answer (`success: false`) with the game's sentence.
 */
import type { CommandCatalogEntry, World } from '../world/index.ts';
import { checkArgs } from './args.ts';
import { consoleStateOf } from './state.ts';
import { RANK_NAMES, refused, type ConsoleRequest, type ResolvedSubject, type VerbOutcome } from './types.ts';
import { VERB_BEHAVIOURS } from './verbs.ts';

/** The game's answer when a `requires_online` verb has nobody connected to carry it. */
export const NOBODY_ONLINE = 'No player online to carry the command';

export interface Dispatch {
  world: World;
  /** The catalogue entry, when the verb is known. */
  entry: CommandCatalogEntry | undefined;
  blocked: boolean;
  subject: ResolvedSubject | null;
  request: ConsoleRequest;
  at: number;
}

/** Why the subject does not fit the verb's target mode, or undefined when it does. */
function targetProblem(entry: CommandCatalogEntry, subject: ResolvedSubject | null): string | undefined {
  const kind = subject?.kind ?? 'none';
  switch (entry.target_mode) {
    case 'none':
      return kind === 'none' ? undefined : `${entry.verb} does not take a target`;
    case 'player':
      return kind === 'player' ? undefined : `${entry.verb} needs a player target`;
    case 'position':
      return kind === 'position' ? undefined : `${entry.verb} needs a position target`;
    case 'player_or_position':
      return kind === 'none' ? `${entry.verb} needs a player or position target` : undefined;
  }
}

export function dispatch(d: Dispatch): VerbOutcome {
  const { entry, request } = d;
  if (entry === undefined) {
    return refused(`Unknown command '${request.verb}'. Type #Help for the list of commands`);
  }
  if (d.blocked) return refused(`Command ${entry.verb} is blocked on this server`);
  if (entry.level > request.rank) {
    return refused(`You need ${RANK_NAMES[entry.level]} rank to run ${entry.verb}`);
  }
  const problem = targetProblem(entry, d.subject);
  if (problem !== undefined) return refused(problem);
  const checked = checkArgs(entry, request.args);
  if (!checked.ok) return refused(checked.message);
  if (entry.requires_online && d.world.players.onlineCount() === 0) return refused(NOBODY_ONLINE);
  const behaviour = VERB_BEHAVIOURS[entry.verb];
  if (behaviour === undefined) return refused(`${entry.verb} is not available on this server`);
  return behaviour({
    world: d.world,
    state: consoleStateOf(d.world),
    entry,
    args: checked.args,
    subject: d.subject,
    request,
    at: d.at,
  });
}
