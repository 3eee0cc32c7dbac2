/**
 * POST /admin/v1/reload (docs/admin.md, "Reload"): the running daemon reads its data files,
 * certificates and reloadable settings again, as SIGHUP does, and answers when it has: 200, or
 * 409 `conflict` naming what refused it when a file is broken, in which case nothing changed and
 * the daemon serves what it had. What `modgate reload` sends, so the operator who edited a file by
 * hand learns at once whether the daemon took it.
 */
import * as z from 'zod';
import { lazySchema } from '../../../protocol/lazy-schema.ts';
import { ApiError } from '../../http/api-error.ts';
import { defineAdminRoute } from '../define-admin-route.ts';

/** What POST /admin/v1/reload answers; the CLI checks answers against it. */
export const Reloaded = lazySchema(() =>
  z
    .object({
      reloaded_at: z.iso.datetime({ offset: true }).describe('When the reload finished'),
      restart_needed: z
        .array(z.string())
        .describe(
          'Settings changed in the config file that a reload does not apply, as dotted names (admin.max_sessions): they take effect at the next restart',
        ),
    })
    .meta({ id: 'AdminReloaded' }),
);

export const reloadRoutes = [
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/reload',
    operationId: 'reload',
    summary: 'Read the data files, certificates and settings again, as SIGHUP does, and say how it went',
    description:
      'Answers once the reload is done. A broken data or config file refuses the whole reload: 409 ' +
      '`conflict` with the reason, and the daemon keeps serving what it had. Nothing to send in the body.',
    tag: 'Status',
    access: { kind: 'owner' },
    response: { status: 200, schema: Reloaded },
    errors: ['conflict', 'idempotency_conflict'],
    handler: async ({ admin }) => {
      let restartNeeded: readonly string[];
      try {
        ({ restartNeeded } = await admin.reload());
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ApiError('conflict', `Reload refused; the daemon serves what it had: ${reason}`);
      }
      return { reloaded_at: new Date().toISOString(), restart_needed: [...restartNeeded] };
    },
  }),
];
