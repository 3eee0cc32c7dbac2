/**
 * GET /admin/v1/group/failures (docs/admin.md, "Group failures"): the sanctions from the group
 * this server's game refused, newest first, as kept in `group-failures.json` in the data dir
 * (daemon/group/group-failures.ts, the newest 1,000). Read from this daemon's own file, never the
 * group's database, so it answers while the database is unreachable too; `total` is how many
 * are kept. A daemon in no group answers 404, as the other group routes.
 */
import * as z from 'zod';
import { lazySchema } from '../../../protocol/lazy-schema.ts';
import { failuresPage } from '../../group/group-failures.ts';
import { collection } from '../../routes/collection.ts';
import { limitParam } from '../../routes/params.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { codecOf } from './audit.ts';
import { groupOf } from './group-sanctions.ts';

const FailuresQuery = lazySchema(() =>
  z
    .object({
      limit: limitParam(1, 200, 50),
      cursor: z.string().max(1_000).optional().describe('next_cursor from the previous page'),
    })
    .strict(),
);

const GroupFailure = lazySchema(() =>
  z
    .object({
      id: z.string().describe("The sanction's place in the group's log (GET /admin/v1/group/sanctions)"),
      action: z.enum(['ban', 'unban', 'mute', 'unmute']),
      platform_id: z.string(),
      origin_server: z.string().describe('The server id of the server it was made on'),
      error: z.string().describe("What this server's game answered"),
      at: z.iso.datetime({ offset: true }).describe("When this server's game refused it"),
    })
    .meta({ id: 'AdminGroupFailure' }),
);

const CURSOR_SCOPE = { keyId: 'admin', route: 'listAdminGroupFailures', filters: {} };

export const groupFailureRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/group/failures',
    operationId: 'listAdminGroupFailures',
    summary: "The sanctions from the group this server's game refused, newest first",
    tag: 'Group',
    // The roles that read the group's sanctions read these: the same players' sanctions.
    access: { kind: 'game', scope: 'players:read' },
    query: FailuresQuery,
    response: { status: 200, schema: () => collection(GroupFailure(), true, 'AdminGroupFailurePage') },
    errors: ['not_found'],
    handler: async ({ query, admin }) => {
      const kept = groupOf(admin).failures();
      const codec = codecOf(admin);
      const after = query.cursor === undefined ? null : codec.decode(CURSOR_SCOPE, query.cursor);
      const page = failuresPage(kept, after, query.limit);
      const next = page.next === null ? null : codec.encode(CURSOR_SCOPE, page.next);
      return { data: page.data, has_more: next !== null, next_cursor: next, total: kept.length };
    },
  }),
];
