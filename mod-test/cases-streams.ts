/**
 * Every game event of the run, judged once the run has seen them all (PROTOCOL §9.2, §9.7): the
 * events cases judge the events they provoke, these judge each one the mod sent on any session,
 * whatever its type (an `economy.changed` from a coin change, a `player.joined` of the game's
 * own), and a stream's seq across sessions: a seq names one event, never another after a
 * redial. They run after the rejections, so the events of nearly the whole run are in.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ModEvent } from '../protocol/frames.ts';
import { expectResult } from './answers.ts';
import { fail, skip, type CaseContext, type ModCase } from './case.ts';
import { EVENT_WAIT_MS, eventProblem, skipWithoutEvents } from './cases-events.ts';
import { banArgs, coinArgs, opId, unban } from './cases-ops.ts';
import type { HarnessLink, ReceivedEvents } from './harness-link.ts';
import { player } from './world-fixtures.ts';

const lifted = (bodies: readonly ReceivedEvents[]) =>
  bodies.some((body) => body.events.some((event) => event.type === 'player.unbanned'));

/** A ban, its lifting and a coin moved and moved back: events of two kinds (docs/events.md). */
async function provoke(ctx: CaseContext, link: HarnessLink): Promise<boolean> {
  const who = await player(ctx);
  await expectResult(ctx, 'players.ban', banArgs(who, 1, 'hours'));
  await unban(ctx, who);
  // economy.changed too, where the mod has coins; without them the ban's events suffice.
  const credit = await ctx.call('economy.coins', coinArgs(who, 1), { opId: opId() });
  if (credit.kind === 'ok') await ctx.call('economy.coins', coinArgs(who, -1), { opId: opId() });
  return link.waitEvents(lifted, EVENT_WAIT_MS);
}

/** The provoking of each run, kept whether it worked or skipped, so it is done (or waited) once. */
const PROVOKED = new WeakMap<CaseContext, Promise<void>>();

/**
 * Two sessions announcing events, each with changes of its own, so a stream's seqs are seen
 * across a redial even when these cases run alone; done once for both cases.
 */
function twoSessions(ctx: CaseContext): Promise<void> {
  let provoked = PROVOKED.get(ctx);
  if (provoked === undefined) {
    provoked = (async () => {
      // A mod that sent no events in the wait events.shape gave it is not waited for again.
      skipWithoutEvents(ctx);
      for (let session = 0; session < 2; session++) {
        const link = await ctx.freshLink(true);
        if (!(await provoke(ctx, link))) {
          skip(
            `the mod sent no player.unbanned within ${EVENT_WAIT_MS} ms of players.unban on a session announcing events, so there are no events to judge (events.shape judges that)`,
          );
        }
      }
    })();
    PROVOKED.set(ctx, provoked);
  }
  return provoked;
}

function eventsOf(links: readonly HarnessLink[]): Array<{ stream: string; event: ModEvent }> {
  return links.flatMap((link) =>
    link.events.flatMap((body) => body.events.map((event) => ({ stream: body.stream, event }))),
  );
}

function described(event: ModEvent): string {
  return `a ${event.type} at ${event.at}`;
}

/** What breaks §9.2 rule 2 in one link's events, given every event seen so far by stream#seq. */
function seqProblem(link: HarnessLink, seen: Map<string, ModEvent>): string | null {
  const last = new Map<string, number>();
  for (const { stream, event } of eventsOf([link])) {
    const before = last.get(stream) ?? 0;
    if (event.seq <= before) {
      return `on one session the mod sent seq ${event.seq} of stream ${stream} after seq ${before}; a stream's seq only grows, and a session carries each event once (§9.2 rule 2, §9.4)`;
    }
    last.set(stream, event.seq);
    const key = `${stream}#${event.seq}`;
    const first = seen.get(key);
    const { type, at, data } = event;
    if (
      first !== undefined &&
      !isDeepStrictEqual({ type, at, data }, { type: first.type, at: first.at, data: first.data })
    ) {
      return `the mod sent seq ${event.seq} of stream ${stream} for two different events, ${described(first)} and then, on a later session, ${described(event)}; a seq numbers one event of its stream and is never reused (§9.2 rule 2): the daemon takes the second as a repeat of the first and loses it (§9.3 rule 5)`;
    }
    seen.set(key, event);
  }
  return null;
}

async function streamSeqs(ctx: CaseContext): Promise<string> {
  await twoSessions(ctx);
  const seen = new Map<string, ModEvent>();
  for (const link of ctx.links) {
    const problem = seqProblem(link, seen);
    if (problem !== null) fail(problem);
  }
  const streams = new Set(eventsOf(ctx.links).map(({ stream }) => stream));
  return `${seen.size} seqs of ${streams.size} stream(s), each one event, growing on every session`;
}

async function everyEvent(ctx: CaseContext): Promise<string> {
  await twoSessions(ctx);
  const all = eventsOf(ctx.links);
  const types = new Map<string, number>();
  for (const { stream, event } of all) {
    const problem = eventProblem(event);
    if (problem !== null) {
      fail(
        `the ${event.type} event of seq ${event.seq} (stream ${stream}) ${problem} (§9.2 rule 5, §9.7); a daemon refuses such an event and it is lost (§9.5)`,
      );
    }
    types.set(event.type, (types.get(event.type) ?? 0) + 1);
  }
  const counts = [...types].map(([type, count]) => `${count} ${type}`).join(', ');
  return `${all.length} events of the run match events.schema.json: ${counts}`;
}

/** Registered after the rejections, so they judge the events of nearly the whole run. */
export function streamCases(): ModCase[] {
  return [
    { id: 'events.stream-seqs', op: null, section: '§9.2', run: streamSeqs },
    { id: 'events.every-event', op: null, section: '§9.7', run: everyEvent },
  ];
}
