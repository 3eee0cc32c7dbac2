/**
 * The group's sanctions on the admin API (docs/admin.md, "Group sanctions"): GET
 * /admin/v1/group/sanctions pages the group's log newest first, filtered by player, kind and
 * origin server, with an authenticated cursor that binds the filters (as GET /admin/v1/audit);
 * POST /admin/v1/group/sanctions/{id}/lift lifts a ban or mute everywhere by publishing its
 * opposite from this server, and lifts it on this server's game too when it is online. The
 * reading is daemon/group/group-sanctions.ts; a daemon in no group answers 404.
 */
import * as z from 'zod';
import { ApiError } from '../../http/api-error.ts';
import { collection } from '../../routes/collection.ts';
import { limitParam } from '../../routes/params.ts';
import { ROUTES } from '../../routes/index.ts';
import type { ValidInput } from '../../http/stages/input.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';
import type { Group } from '../../group/group.ts';
import { liftSanction, sanctionsPage } from '../../group/group-sanctions.ts';
import { actorId } from '../admin-actor.ts';
import { defineAdminRoute, type AdminContext } from '../define-admin-route.ts';
import type { AdminServices } from '../services.ts';
import { codecOf } from './audit.ts';
import { panelActor } from './game.ts';

const TAG = 'Group';
const ID = /^[1-9][0-9]{0,18}$/;

const SanctionsQuery = lazySchema(() =>
  z
    .object({
      platform_id: z.string().min(1).max(64).optional().describe("Only this player's sanctions"),
      kind: z.enum(['bans', 'mutes']).optional().describe('Only bans (with unbans) or mutes (with unmutes)'),
      origin: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .describe('Only sanctions made on this server (its server id)'),
      limit: limitParam(1, 200, 50),
      cursor: z.string().max(1_000).optional().describe('next_cursor from the previous page'),
    })
    .strict(),
);

const Actor = lazySchema(() =>
  z
    .object({
      name: z.string(),
      key_id: z.string().nullable(),
      platform_id: z.string().nullable(),
      social_id: z.string().nullable(),
      source: z.string().describe('api, panel or game: how it was made on its origin server'),
    })
    .meta({ id: 'AdminGroupSanctionActor' }),
);

const GroupSanction = lazySchema(() =>
  z
    .object({
      id: z.string().describe("The sanction's place in the group's log"),
      action: z.enum(['ban', 'unban', 'mute', 'unmute']),
      kind: z.enum(['bans', 'mutes']),
      platform_id: z.string(),
      origin: z.object({
        server_id: z.string(),
        name: z.string().nullable().describe("The origin server's name; null when it never registered"),
        actor: Actor(),
        reason: z.string().nullable(),
      }),
      channels: z.array(z.string()).nullable().describe("A mute's channels"),
      created_at: z.string().describe('When it was made on its origin server'),
      expires_at: z
        .string()
        .nullable()
        .describe('When it ends; null when permanent, and for unban and unmute'),
      published_at: z.string().describe("When it entered the group's log"),
      servers: z
        .array(
          z.object({
            server_id: z.string(),
            name: z.string(),
            state: z
              .enum(['origin', 'done', 'pending', 'not_accepted'])
              .describe('done: applied, or refused by its game (group.sanction.failed on that server)'),
          }),
        )
        .describe('Every server of the group and where it stands with this sanction'),
      superseded_by: z
        .object({ id: z.string(), action: z.enum(['ban', 'unban', 'mute', 'unmute']) })
        .nullable()
        .describe(
          'The next sanction of the same player and kind, which lifted or replaced this one; null while this is the last',
        ),
    })
    .meta({ id: 'AdminGroupSanction' }),
);

const LiftAnswer = lazySchema(() =>
  z
    .object({
      lifted: GroupSanction(),
      published: z.object({
        action: z.enum(['unban', 'unmute']),
        platform_id: z.string(),
        created_at: z.string(),
      }),
      applied_here: z
        .boolean()
        .describe("Whether this server's game lifted it now (false: its game is offline)"),
    })
    .meta({ id: 'AdminGroupLift' }),
);

const idParams = lazySchema(() => z.object({ id: z.string().regex(ID, 'a sanction id') }).strict());

const CURSOR_SCOPE = { keyId: 'admin', route: 'listAdminGroupSanctions' };

export function groupOf(admin: AdminServices): Group {
  const group = admin.group();
  if (!group)
    throw new ApiError(
      'not_found',
      'This daemon is in no group: add [group] to its config file (docs/group.md).',
    );
  return group;
}

const unreachable = () =>
  new ApiError('server_unavailable', "The group's database is unreachable now; try again.", { status: 503 });

const unban = ROUTES.find((route) => route.operationId === 'unbanPlayer');
const unmute = ROUTES.find((route) => route.operationId === 'unmutePlayer');

/** The lift on this server's game, through its /v1 route as the panel's game routes run it; false when it failed. */
async function liftHere(ctx: AdminContext<unknown, unknown, unknown>, action: string, platformId: string) {
  const route = action === 'unban' ? unban : unmute;
  if (!route) return false;
  try {
    await ctx.admin.game.runGame(route, {
      input: { params: route.params.parse({ ref: platformId }), query: {}, body: undefined } as ValidInput,
      callerId: `admin:${actorId(ctx.actor)}`,
      actor: panelActor(ctx.actor),
      headers: ctx.headers,
      requestId: ctx.requestId,
      opIdBase: null,
    });
    return true;
  } catch {
    return false;
  }
}

export const groupSanctionRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/group/sanctions',
    operationId: 'listAdminGroupSanctions',
    summary: "The group's sanctions, newest first, filtered by player, kind and origin",
    tag: TAG,
    access: { kind: 'game', scope: 'players:read' },
    query: SanctionsQuery,
    response: { status: 200, schema: () => collection(GroupSanction(), false, 'AdminGroupSanctionPage') },
    errors: ['not_found', 'server_unavailable'],
    handler: async ({ query, admin }) => {
      const group = groupOf(admin);
      const { cursor, limit, ...filters } = query;
      const scope = { ...CURSOR_SCOPE, filters };
      const codec = codecOf(admin);
      const before = cursor === undefined ? null : BigInt(codec.decode(scope, cursor));
      const page = await sanctionsPage(group, filters, before, limit);
      if (page === null) throw unreachable();
      const next = page.next === null ? null : codec.encode(scope, page.next);
      return { data: page.data, has_more: next !== null, next_cursor: next };
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/group/sanctions/{id}/lift',
    operationId: 'liftAdminGroupSanction',
    summary: 'Lift a ban or mute on every server of the group (publishes its unban or unmute)',
    tag: TAG,
    // Moderator and owner: every role that may ban may also mute (roles.ts, ROLE_SCOPES).
    access: { kind: 'game', scope: 'players:ban' },
    params: idParams,
    response: { status: 200, schema: LiftAnswer },
    errors: ['not_found', 'conflict', 'server_unavailable'],
    handler: async (ctx) => {
      const group = groupOf(ctx.admin);
      const { id } = ctx.params;
      const actor = panelActor(ctx.actor);
      const outcome = await liftSanction(group, BigInt(id), actor, new Date());
      if (outcome === null) throw unreachable();
      if ('reason' in outcome) throw refusal(outcome, id);
      const { published } = outcome;
      const appliedHere = await liftHere(ctx, published.action, published.platform_id);
      return {
        lifted: outcome.lifted,
        published: {
          action: published.action as 'unban' | 'unmute',
          platform_id: published.platform_id,
          created_at: published.created_at,
        },
        applied_here: appliedHere,
      };
    },
  }),
];

function refusal(
  outcome: Exclude<Awaited<ReturnType<typeof liftSanction>>, null | { lifted: unknown }>,
  id: string,
) {
  const details = { resource: 'group_sanction', id };
  switch (outcome.reason) {
    case 'not_found':
      return new ApiError('not_found', `No group sanction ${id}.`, { details });
    case 'is_lift':
      return new ApiError('conflict', `Sanction ${id} is itself an unban or unmute.`, { details });
    case 'superseded':
      return new ApiError(
        'conflict',
        `Sanction ${id} was replaced by sanction ${outcome.by} of the same player.`,
        {
          details: { ...details, superseded_by: outcome.by },
        },
      );
    case 'ended':
      return new ApiError('conflict', `Sanction ${id} has run out already.`, { details });
  }
}
