/**
 * GET /admin/v1/group (docs/admin.md, "Group"): every server of this daemon's group (docs/group.md)
 * with whether its daemon and its game link are up, when it was last seen, and how many sanctions
 * it has yet to apply. Read from the group's database; while that is unreachable, as last read,
 * with `database_connected: false`. Every signed-in role may read it. Without `[group]` in the
 * config file the answer is 404 `not_found`.
 */
import * as z from 'zod';
import { ApiError } from '../../http/api-error.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

export const GroupView = lazySchema(() =>
  z
    .object({
      database_connected: z
        .boolean()
        .describe(
          "Whether this daemon is connected to the group's database now; false: servers as last read.",
        ),
      servers: z.array(
        z.object({
          name: z.string(),
          server_id: z.string(),
          daemon_up: z
            .boolean()
            .describe('Its daemon reported within the last 150 seconds and has not stopped.'),
          link_up: z.boolean().describe("Its game's mod link was up when its daemon last reported."),
          last_seen_at: z.iso.datetime({ offset: true }),
          pending: z
            .number()
            .int()
            .describe('Sanctions of the group it has yet to apply (of the kinds it accepts).'),
        }),
      ),
    })
    .meta({ id: 'AdminGroup' }),
);

export const groupRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/group',
    operationId: 'getAdminGroup',
    summary: "The servers of this daemon's group and how far each is behind",
    tag: 'Group',
    access: { kind: 'staff' },
    response: { status: 200, schema: GroupView },
    errors: ['not_found', 'daemon_not_running'],
    handler: async ({ admin }) => {
      const group = admin.group();
      if (group === null) {
        throw new ApiError(
          'not_found',
          'This daemon is in no group: [group] is not in its config file (docs/group.md).',
        );
      }
      return group.status();
    },
  }),
];
