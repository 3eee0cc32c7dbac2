/**
 * Handlers for the command ops (protocol/ops/commands.ts), over the console engine
 * (mod-sim/console/). `commands.execute` runs at the highest rank (the API's commands:execute is
 * the widest scope; only the blocklist narrows it) and is applied at most once per op id
 * (PROTOCOL §6.4): a retry answers the first result and runs nothing. `commands.history` pages
 * newest first; `next` is the position (seq) of the last row.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpHandlers, OpResult } from '../../protocol/ops/index.ts';
import type { CommandConsole, ResolvedSubject } from '../console/index.ts';
import type { World } from '../world/index.ts';
import { type ArgsOf, sourceOf } from './players-common.ts';
import { oncePerOpId } from './players.ts';

export type CommandOpName = 'commands.execute' | 'commands.catalog' | 'commands.history';
export type CommandHandlers = Pick<OpHandlers, CommandOpName>;

type Result = OpResult<'commands.execute'>;

/** The returned subject (our shape: the spec leaves it open; docs/commands.md). */
export function subjectView(subject: ResolvedSubject | null): Result['subject'] {
  if (subject === null) return null;
  if (subject.kind === 'position') return { kind: 'position', player: null, position: subject.position };
  return {
    kind: 'player',
    player: { platform_id: subject.platformId, social_id: subject.player?.social_id ?? null },
    position: null,
  };
}

export function executeCommand(commands: CommandConsole, args: ArgsOf<'commands.execute'>): Result {
  const outcome = commands.execute({
    verb: args.verb,
    args: args.args,
    target: args.subject,
    actor: args.actor,
    source: sourceOf(args.actor),
    rank: 4,
  });
  return {
    verb: outcome.verb,
    success: outcome.success,
    result: outcome.result,
    subject: subjectView(outcome.subject),
  };
}

const POSITION = /^(0|[1-9][0-9]{0,15})$/;

/** Reads a `next` this handler returned: a history position in decimal. */
function historyAfter(after: string | null): number | undefined {
  if (after === null) return undefined;
  const seq = Number(after);
  if (!POSITION.test(after) || !Number.isSafeInteger(seq)) {
    throw new OpError('invalid', `'${after}' is not a position in the command history`);
  }
  return seq;
}

export function listHistory(world: World, args: ArgsOf<'commands.history'>): OpResult<'commands.history'> {
  const page = world.commands.history.query(historyAfter(args.after), args.limit, {
    command: args.command,
    start_date: args.start_date,
    end_date: args.end_date,
  });
  return { data: page.items, next: page.nextAfter === null ? null : String(page.nextAfter) };
}

export function commandHandlers(world: World, commands: CommandConsole): CommandHandlers {
  return {
    'commands.execute': oncePerOpId(world, 'commands.execute', (args) => executeCommand(commands, args)),
    'commands.catalog': () => commands.catalog(),
    'commands.history': (args) => listHistory(world, args),
  };
}
