/**
 * GET /v1/events (docs/events.md): the event log, for bots. With `Accept: text/event-stream` it
 * is a Server-Sent Events stream that resumes after `Last-Event-ID` (or `?after=`); otherwise a
 * page of events after a position, in the collection envelope, for bots that poll. Both read the
 * same durable log, so the ids a stream shows are the positions a poller passes back.
 *
 * Decisions where the spec is silent: a position older than retention is 400 `validation_error`
 * with `details.oldest_id` (the spec has no 410); a position beyond the newest id (a data dir
 * that was reset) is 400 too; `next_cursor` is the last id of the page, so it can be passed back
 * as `after` or `cursor`.
 */
import * as z from 'zod';
import { EventStream } from '../events/sse-stream.ts';
import { eventView } from '../events/payloads.ts';
import { EVENT_TYPES, isEventType, type EventType, type StoredEvent } from '../events/types.ts';
import type { FileEventLog } from '../events/event-log.ts';
import { ApiError } from '../http/api-error.ts';
import { collection } from './collection.ts';
import { defineRoute, type RouteServices } from '../http/define-route.ts';
import { limitParam } from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export const EVENTS_TAG = 'Events';
/** Most events one filtered page request looks through before answering with `has_more`. */
export const SCAN_LIMIT = 10_000;

export const position = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,15})$/, 'an event id: digits')
  .transform(Number);

/** `types=a,b`: known event types only, as a set. */
export const typesParam = z
  .string()
  .max(1_000)
  .transform((text, ctx) => {
    const types = text.split(',').map((type) => type.trim());
    const unknown = types.filter((type) => !isEventType(type));
    if (unknown.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown event types: ${unknown.join(', ')}` });
      return z.NEVER;
    }
    return new Set(types as EventType[]);
  })
  .optional()
  .describe(`Comma-separated event types to return: ${EVENT_TYPES.join(', ')}`);

const EventsQuery = lazySchema(() =>
  z
    .object({
      after: position
        .optional()
        .describe('Return events with a higher id; default: a page from the oldest held, a stream from now'),
      cursor: position.optional().describe('next_cursor from the previous page (the same as after)'),
      types: typesParam,
      limit: limitParam(1, 1_000, 100),
    })
    .strict()
    .refine((query) => query.after === undefined || query.cursor === undefined, {
      message: 'pass after or cursor, not both',
      path: ['cursor'],
    }),
);

type Query = z.output<ReturnType<typeof EventsQuery>>;

export const Event = lazySchema(() =>
  z
    .object({
      id: z.number().int().positive().describe('Daemon-assigned, strictly increasing'),
      type: z.enum(EVENT_TYPES),
      at: z.string().describe('When it happened, ISO 8601 UTC (the game clock for game events)'),
      data: z.record(z.string(), z.unknown()).describe('The payload; docs/events.md lists each type'),
    })
    .meta({ id: 'Event' }),
);

function eventLogOf(services: RouteServices): FileEventLog {
  if (!services.events) throw new ApiError('internal', 'The event log is not available.');
  return services.events;
}

/**
 * The position to read after: the query, else Last-Event-ID, else `fallback` (a page starts at
 * the oldest event held, a stream at the newest); checked against the log.
 */
export function startAfter(
  eventLog: FileEventLog,
  query: Pick<Query, 'after' | 'cursor'>,
  lastEventId: string | undefined,
  fallback: number,
): number {
  let after = query.after ?? query.cursor ?? fallback;
  if (query.after === undefined && query.cursor === undefined && lastEventId !== undefined) {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(lastEventId.trim())) {
      throw invalid('last-event-id', 'Last-Event-ID must be an event id (digits).');
    }
    after = Number(lastEventId.trim());
  }
  if (after > eventLog.lastId()) {
    throw invalid('after', `No event has id ${after} yet; the newest is ${eventLog.lastId()}.`);
  }
  const oldest = eventLog.oldestId();
  if (after < oldest - 1) {
    throw new ApiError(
      'validation_error',
      `Events after id ${after} are no longer held (retention); the oldest held is ${oldest}. ` +
        `Resume from after=${oldest - 1} knowing events in between are gone, or resynchronise.`,
      { details: { errors: [{ path: 'after', message: 'older than retention' }], oldest_id: oldest } },
    );
  }
  return after;
}

function invalid(path: string, message: string): ApiError {
  return new ApiError('validation_error', message, { details: { errors: [{ path, message }] } });
}

export const listEvents = defineRoute({
  method: 'GET',
  path: '/v1/events',
  operationId: 'listEvents',
  summary: 'Events after a position: a page (JSON) or a live stream (Accept: text/event-stream)',
  tag: EVENTS_TAG,
  scope: 'events:read',
  query: EventsQuery,
  response: { status: 200, schema: () => collection(Event(), false, 'EventPage') },
  cache: { kind: 'no-store' },
  errors: [],
  stream: {
    contentType: 'text/event-stream',
    headers: {
      'last-event-id':
        'Resume after this event id (what EventSource sends); ?after= wins when both are given',
    },
    open: ({ query, key, headers, services }) =>
      new EventStream({
        eventLog: eventLogOf(services),
        after: startAfter(
          eventLogOf(services),
          query,
          headers['last-event-id'],
          eventLogOf(services).lastId(),
        ),
        types: query.types ?? null,
        view: eventView(key.scopes),
        subscribers: (delta) => services.metrics?.eventSubscribers(delta, 'sse'),
        cut: (reason) => services.metrics?.eventStreamCut(reason),
        ...services.eventStream,
      }),
  },
  handler: async ({ query, key, headers, services }) => {
    const eventLog = eventLogOf(services);
    const view = eventView(key.scopes);
    let after = startAfter(eventLog, query, headers['last-event-id'], eventLog.oldestId() - 1);
    const data: StoredEvent[] = [];
    // Filtered reads skip ahead through the log, at most SCAN_LIMIT events a request; a page
    // never holds more than `limit` events.
    const stop = after + SCAN_LIMIT;
    while (data.length < query.limit && after < eventLog.lastId() && after < stop) {
      const read = eventLog.readPage(after, query.limit - data.length);
      if (!('events' in read)) throw invalid('after', 'Events were dropped by retention while reading.');
      for (const event of read.events) {
        if (!query.types || query.types.has(event.type)) data.push(view(event));
      }
      // The position moves past unreadable lines too (the log skipped and counted them).
      after = read.through;
    }
    const hasMore = after < eventLog.lastId();
    return { data, has_more: hasMore, next_cursor: hasMore ? String(after) : null };
  },
});

export const EVENT_ROUTES = [listEvents];
