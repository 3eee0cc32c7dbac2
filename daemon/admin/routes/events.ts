/**
 * GET /admin/v1/events (docs/admin.md, "Live events"): every event as Server-Sent Events, all
 * types and every field, for the operator panel's live tail. The same messages, resume
 * (`Last-Event-ID` or `?after=`) and slow-reader cut as GET /v1/events (docs/events.md), with
 * caps of its own per admin and in all, and cut when the admin token that opened it is revoked
 * (admin-event-streams.ts).
 */
import * as z from 'zod';
import { position, startAfter, typesParam } from '../../routes/events.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

const EventsQuery = lazySchema(() =>
  z
    .object({
      after: position.optional().describe('Stream the events after this id; default: from now on'),
      types: typesParam,
    })
    .strict(),
);

export const eventRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/events',
    operationId: 'streamAdminEvents',
    summary: 'Every event, live, as Server-Sent Events (resume with Last-Event-ID)',
    description:
      'A text/event-stream: one message per event (`id:` the event id, `event:` its type, `data:` `{id, type, at, data}`), heartbeat comments, and a final `stream.closed` or `error` message when the daemon ends it. Unlike GET /v1/events it shows every field of every event.',
    tag: 'Events',
    access: { kind: 'owner' },
    query: EventsQuery,
    response: { status: 200 },
    errors: ['rate_limited'],
    stream: ({ query, headers, actor, sessionId, requestId, admin }) => {
      const after = startAfter(admin.events, query, headers['last-event-id'], admin.events.lastId());
      const session = sessionId === null ? null : { expiry: () => admin.panel.sessions.expiryOf(sessionId) };
      return admin.eventStreams.open(actor, requestId, after, query.types ?? null, session);
    },
    handler: async () => {
      throw new Error('GET /admin/v1/events always streams');
    },
  }),
];
