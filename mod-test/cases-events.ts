/**
 * Game events (PROTOCOL §9), provoked through the ops: a ban and its lifting are each an event
 * (`player.banned`, `player.unbanned`, docs/events.md). The cases check that a mod sends events
 * only on a session whose `ready` announced them (§9.1), their shape (§9.2), that it keeps what
 * was not acknowledged and sends it again first after a redial (§9.4), that it forgets what an
 * `events_ack` covered, refused events included, and keeps its link (§9.3, §9.5). Each event's
 * `data` is checked against `events.schema.json` (§9.7), the file PROTOCOL.md publishes. Events
 * are optional (§9.1, §9.5): a mod that sends none is skipped, once, by `events.shape`, and the
 * cases after it that need events skip with it.
 */
import * as z from 'zod';
import eventSchemas from '../protocol/events.schema.json' with { type: 'json' };
import { check, expectResult } from './answers.ts';
import { EVENTS_PER_BODY, MAX_BODY_BYTES } from '../protocol/event-outbox.ts';
import { fail, skip, type CaseContext, type ModCase } from './case.ts';
import { banArgs, PLAYER_ROWS, unban } from './cases-ops.ts';
import type { ModEvent } from '../protocol/frames.ts';
import type { HarnessLink, ReceivedEvents } from './harness-link.ts';
import { player } from './world-fixtures.ts';

interface EventSchemaFile {
  reserved_types: string[];
  types: Record<string, { data: Record<string, unknown> }>;
}

/** PROTOCOL §9.7: each type's `data` as `events.schema.json` gives it, compiled on first use. */
const DATA_SCHEMAS = new Map<string, z.ZodType>();

function dataSchema(type: string): z.ZodType | undefined {
  const file = eventSchemas as unknown as EventSchemaFile;
  const json = Object.hasOwn(file.types, type) ? file.types[type]?.data : undefined;
  if (json === undefined) return undefined;
  let schema = DATA_SCHEMAS.get(type);
  if (schema === undefined) {
    // zod has had fromJSONSchema since 4.2; with an older one only the type is checked.
    schema =
      typeof z.fromJSONSchema === 'function'
        ? z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0])
        : z.record(z.string(), z.unknown());
    DATA_SCHEMAS.set(type, schema);
  }
  return schema;
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** How long a mod may take to send the events of a change it has answered. */
export const EVENT_WAIT_MS = 5_000;
/** How long the harness watches for events that must not come. */
const QUIET_MS = 500;

/** Bans and unbans the fixture player: two events in the game (docs/events.md). */
async function provoke(ctx: CaseContext): Promise<void> {
  const who = await player(ctx);
  await expectResult(ctx, 'players.ban', banArgs(who, 1, 'hours'));
  await unban(ctx, who);
}

function hasType(type: string) {
  return (bodies: readonly ReceivedEvents[]) =>
    bodies.some((body) => body.events.some((e) => e.type === type));
}

/** Every seq received, as `stream#seq`. */
function seqs(bodies: readonly ReceivedEvents[]): Set<string> {
  return new Set(bodies.flatMap((body) => body.events.map((e) => `${body.stream}#${e.seq}`)));
}

async function notAnnounced(ctx: CaseContext): Promise<string> {
  const link = await ctx.freshLink(false); // ready.events false: the same as absent (§9.1 rule 1)
  // A mod that breaks §9.1 may lose its link before the ops answer; that is judged first.
  const provoked = await provoke(ctx).then(
    () => null,
    (error: unknown) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  check(
    link.closed?.violation?.code !== 'unexpected_frame',
    'the mod sent events on a session whose ready said events: false, which a daemon rejects with 4021 unexpected_frame; it keeps them buffered for a session that announces events (§9.1 rules 1–3)',
  );
  if (provoked !== null) throw provoked;
  check(
    link.events.length === 0,
    `the mod sent ${link.events.length} events body(ies) on a session whose ready did not announce events; it keeps them buffered for a daemon that does (§9.1)`,
  );
  return 'no events without events: true in ready';
}

/** What breaks §9.2 or §9.7 in one body received on a session (`last`: each stream's last seq). */
function shapeProblem(body: ReceivedEvents, last: Map<string, number>): string | null {
  for (const event of body.events) {
    const previous = last.get(body.stream) ?? 0;
    // Within one session a stream's seq only grows, across bodies too (§9.2 rule 2, §9.4).
    if (event.seq <= previous)
      return `event seq ${event.seq} of stream ${body.stream} follows seq ${previous}`;
    last.set(body.stream, event.seq);
    const problem = eventProblem(event);
    if (problem !== null) return `event seq ${event.seq} (${event.type}) ${problem}`;
  }
  return null;
}

/** What in one event breaks §9.2 rule 5 or §9.7 (its type, `at`, `data`'s shape), or null. */
export function eventProblem(event: ModEvent): string | null {
  const schema = dataSchema(event.type);
  if (schema === undefined) return 'has a type that is not one of §9.7 (events.schema.json)';
  if (!ISO_WITH_OFFSET.test(event.at)) return `has at "${event.at}", not ISO 8601 with an offset`;
  const parsed = schema.safeParse(event.data);
  if (parsed.success) return null;
  const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.map(String).join('.')}: ${i.message}`);
  const more = parsed.error.issues.length > 3 ? ` (${parsed.error.issues.length} problems in all)` : '';
  return `has data that breaks its shape in events.schema.json: ${issues.join('; ')}${more}`;
}

/** Why the events cases are skipped for a mod that sent no events at all (`since`: how long it had). */
function noEvents(since: string): string {
  return `the mod sent no events body ${since}, on sessions whose ready announced events; events are optional (§9.1: "new and optional"; §9.5: mods of version 1 keep working), so the cases of §9 are skipped`;
}

/** Skips at once when the run lifted a ban on an announcing session long ago and saw no events. */
export function skipWithoutEvents(ctx: CaseContext): void {
  const unbanned = ctx.firstAnsweredOnEvents('players.unban');
  const waited = unbanned === null ? 0 : Date.now() - unbanned;
  if (ctx.eventBodies().length === 0 && waited >= EVENT_WAIT_MS)
    skip(noEvents(`in the ${waited} ms since players.unban lifted a ban`));
}

async function schema(ctx: CaseContext): Promise<string> {
  skipWithoutEvents(ctx);
  const link = await ctx.freshLink(true);
  await provoke(ctx);
  if (!(await link.waitEvents(hasType('player.unbanned'), EVENT_WAIT_MS))) {
    if (ctx.eventBodies().length === 0)
      skip(noEvents(`within ${EVENT_WAIT_MS} ms of a ban and its lifting (players.ban, players.unban)`));
    fail(
      `no player.unbanned event within ${EVENT_WAIT_MS} ms of a ban lifted through players.unban, on a session that announced events (§9.1, docs/events.md)`,
    );
  }
  const last = new Map<string, number>();
  for (const body of link.events) {
    const problem = shapeProblem(body, last);
    if (problem !== null) fail(`an events body breaks §9.2: ${problem}`);
  }
  const count = link.events.reduce((sum, body) => sum + body.events.length, 0);
  return `${count} events in ${link.events.length} bodies`;
}

/** Events received on `link` that it did not acknowledge; the link's acks are off. */
async function unacknowledged(ctx: CaseContext): Promise<{ link: HarnessLink; held: Set<string> }> {
  const link = await ctx.freshLink(true);
  link.autoAck = false;
  await provoke(ctx);
  if (!(await link.waitEvents(hasType('player.unbanned'), EVENT_WAIT_MS))) {
    if (ctx.eventBodies().length === 0)
      skip(noEvents(`within ${EVENT_WAIT_MS} ms of a ban and its lifting (players.ban, players.unban)`));
    fail(`no player.unbanned event within ${EVENT_WAIT_MS} ms of players.unban (§9.2)`);
  }
  return { link, held: seqs(link.events) };
}

async function resend(ctx: CaseContext): Promise<string> {
  const { link, held } = await unacknowledged(ctx);
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  // Counted against every seq seen, not against `held`: the game may make new events meanwhile.
  const sent = link.events.reduce((sum, body) => sum + body.events.length, 0);
  const repeated = sent - seqs(link.events).size;
  check(
    repeated === 0,
    `the mod sent ${repeated} event(s) twice on one session while it waited for an ack; it sends each event at most once per session (§9.4)`,
  );
  const next = await ctx.freshLink(true);
  const all = (bodies: readonly ReceivedEvents[]) => [...held].every((key) => seqs(bodies).has(key));
  if (!(await next.waitEvents(all, EVENT_WAIT_MS))) {
    const missing = [...held].filter((key) => !seqs(next.events).has(key));
    fail(
      `after a redial the mod did not send again ${missing.length} event(s) it had sent but the daemon never acknowledged (${missing.slice(0, 3).join(', ')}); a mod keeps each event until an events_ack covers it (§9.4)`,
    );
  }
  return `${held.size} unacknowledged events sent again after the redial`;
}

async function ackForgets(ctx: CaseContext): Promise<string> {
  const { link, held } = await unacknowledged(ctx);
  for (const body of link.events) {
    const last = body.events[body.events.length - 1];
    if (last) link.send({ t: 'events_ack', stream: body.stream, seq: last.seq });
  }
  check(await link.ping(EVENT_WAIT_MS), 'the mod did not answer a ping after events_ack');
  const next = await ctx.freshLink(true);
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  const again = [...seqs(next.events)].filter((key) => held.has(key));
  check(
    again.length === 0,
    `after a redial the mod sent again ${again.length} event(s) an events_ack had covered (${again.slice(0, 3).join(', ')}); acknowledged events are forgotten (§9.3, §9.4)`,
  );
  return `${held.size} acknowledged events not sent again`;
}

async function refused(ctx: CaseContext): Promise<string> {
  const { link, held } = await unacknowledged(ctx);
  for (const body of link.events) {
    const last = body.events[body.events.length - 1];
    const refusals = body.events.map((e) => ({ seq: e.seq, reason: 'modtest_unknown_reason' }));
    if (last) link.send({ t: 'events_ack', stream: body.stream, seq: last.seq, refused: refusals });
  }
  check(
    await link.ping(EVENT_WAIT_MS),
    'the mod did not keep its link after an events_ack with refused events and a reason it does not know (§9.5 rules 5–6)',
  );
  const next = await ctx.freshLink(true);
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  const again = [...seqs(next.events)].filter((key) => held.has(key));
  check(
    again.length === 0,
    `the mod sent again ${again.length} refused event(s); a refused event is covered by the ack (§9.5 rule 6)`,
  );
  return 'refused events forgotten, link kept';
}

/** §9.3 rule 4: an ack for a stream or seq the mod does not hold is ignored; the link stays. */
async function ackForNothing(ctx: CaseContext): Promise<string> {
  const link = await ctx.link();
  link.send({ t: 'events_ack', stream: 'modtest-no-such-stream', seq: 7 });
  if (!(await link.ping(EVENT_WAIT_MS))) {
    const close = link.closed;
    const how =
      close === null
        ? `kept the link but did not answer a ping within ${EVENT_WAIT_MS} ms`
        : close.violation
          ? `sent bytes a daemon must reject (${close.violation.code}: ${close.violation.message})`
          : `closed the link with ${close.code}${close.reason ? ` ${close.reason}` : ''}`;
    fail(
      `after an events_ack for a stream it never sent the mod ${how}; such an ack is ignored and the link stays (§9.3 rule 4)`,
    );
  }
  return 'ignored, link kept';
}

/** Ban-and-unban pairs `events.body-limits` provokes while events are held: 66 events, over 64. */
const BURST_PAIRS = 33;

function eventCount(bodies: readonly ReceivedEvents[]): number {
  return bodies.reduce((sum, body) => sum + body.events.length, 0);
}

/** What breaks §9.5 rule 2 in the bodies the run received, or null. */
function bodyTooLarge(bodies: readonly ReceivedEvents[]): string | null {
  const over = bodies.find((body) => body.bytes > MAX_BODY_BYTES);
  if (over === undefined) return null;
  return `an events body of ${over.events.length} events holds ${over.bytes} bytes of events' msgpack, over the daemon's ${MAX_BODY_BYTES} (512 KiB, maxBatchBytes): the daemon refuses every event past it as batch_too_large and the mod forgets them (§9.5 rule 2); keep each body within 512 KiB`;
}

/**
 * Holds a burst of more events than one body of the reference bridge carries (a session without
 * events), lets the mod send them at once after a redial (§9.4), then checks every `events`
 * body of the run against the daemon's per-body limit (§9.5 rule 2) and reports the largest.
 */
async function bodyLimits(ctx: CaseContext): Promise<string> {
  await ctx.freshLink(false);
  for (let pair = 0; pair < BURST_PAIRS; pair++) await provoke(ctx);
  const next = await ctx.freshLink(true);
  const burst = BURST_PAIRS * 2;
  // A mod whose buffer holds fewer events drops the oldest (§9.4), so fewer is no failure here;
  // resending what was held is `events.resend`'s to judge.
  await next.waitEvents((bodies) => eventCount(bodies) >= burst, EVENT_WAIT_MS);
  const resent = eventCount(next.events);
  const short = resent < burst ? ` (a buffer under ${burst} events drops the oldest, §9.4)` : '';
  const bodies = ctx.eventBodies();
  if (bodies.length === 0) skip(noEvents('in the run'));
  const problem = bodyTooLarge(bodies);
  if (problem !== null) fail(problem);
  const most = Math.max(...bodies.map((body) => body.events.length));
  const largest = Math.max(...bodies.map((body) => body.bytes));
  const beyond =
    most > EVENTS_PER_BODY ? ` (more than the reference bridge's ${EVENTS_PER_BODY}, which §9.2 allows)` : '';
  return `${resent} of ${burst} held events resent in ${next.events.length} bodies${short}; of ${bodies.length} bodies the largest held ${most} events${beyond} and ${largest} bytes of events' msgpack`;
}

/** The ops `provoke` calls; and `events.shape`, which skips when the mod sends no events. */
const PROVOKES = [PLAYER_ROWS, 'op.players.ban', 'op.players.unban'];
const SENDS_EVENTS = [...PROVOKES, 'events.shape'];

export function eventCases(): ModCase[] {
  return [
    { id: 'events.not-announced', op: null, section: '§9.1', needs: PROVOKES, run: notAnnounced },
    { id: 'events.shape', op: null, section: '§9.2', needs: PROVOKES, run: schema },
    { id: 'events.resend', op: null, section: '§9.4', needs: SENDS_EVENTS, run: resend },
    { id: 'events.ack-forgets', op: null, section: '§9.3', needs: SENDS_EVENTS, run: ackForgets },
    { id: 'events.refused', op: null, section: '§9.5', needs: SENDS_EVENTS, run: refused },
    // A daemon acknowledges only what it was sent: a mod that sends no events never sees an ack.
    { id: 'events.ack-for-nothing', op: null, section: '§9.3', needs: SENDS_EVENTS, run: ackForNothing },
    { id: 'events.body-limits', op: null, section: '§9.5', needs: SENDS_EVENTS, run: bodyLimits },
  ];
}
