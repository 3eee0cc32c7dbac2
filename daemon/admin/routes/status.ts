/**
 * GET /admin/v1/status (docs/admin.md, "Status"): who this daemon is, its versions, how long it
 * has run, the mod link, the API switch and plan, the event log's position, and the /v1
 * requests answered over the last hour by status class.
 */
import * as z from 'zod';
import packageJson from '../../../package.json' with { type: 'json' };
import { SUPPORTED_VERSIONS } from '../../../protocol/handshake-messages.ts';
import { API_VERSION } from '../../version.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { isPremiumActive } from '../../store/state.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

const count = z.number().int();
const classCounts = lazySchema(() => z.object({ '2xx': count, '3xx': count, '4xx': count, '5xx': count }));

export const planView = lazySchema(() =>
  z
    .object({
      premium: z.boolean().describe('Whether the plan includes premium (the API needs it).'),
      until: z.iso.datetime({ offset: true }).nullable().describe('When premium ends; null: no end date.'),
      features: z.array(z.enum(['shop'])).describe('Plan features beyond premium.'),
      active: z.boolean().describe('Premium is on and has not reached its end date.'),
    })
    .meta({ id: 'AdminPlan' }),
);

const status = lazySchema(() =>
  z
    .object({
      server_id: z.string(),
      name: z.string().nullable(),
      versions: z.object({
        modgate: z.string().describe('The daemon build.'),
        api: z.string().describe('The /v1 API version (API-Version header).'),
        protocol: z.array(z.number().int()).describe('Mod link protocol versions this daemon speaks.'),
      }),
      started_at: z.iso.datetime({ offset: true }),
      uptime_seconds: z.number().int(),
      link: z.object({
        connected: z.boolean(),
        mod_version: z.string().nullable(),
        since: z.iso.datetime({ offset: true }).nullable(),
      }),
      players_online: z
        .number()
        .int()
        .nullable()
        .describe('Players online as the game reports them; null with no mod link or no answer within 2 s'),
      api: z.object({ enabled: z.boolean() }),
      plan: planView(),
      events: z.object({
        last_id: z.number().int().describe('The newest event id in the log (0: none yet).'),
        oldest_id: z.number().int().describe('The oldest event id still kept.'),
      }),
      requests: z.object({
        window_minutes: z.number().int(),
        totals: classCounts(),
        per_minute: z.array(classCounts().extend({ minute: z.iso.datetime({ offset: true }) })),
      }),
    })
    .meta({ id: 'AdminStatus' }),
);

export const statusRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/status',
    operationId: 'getAdminStatus',
    summary: 'The daemon, the mod link, the switches and recent traffic',
    tag: 'Status',
    access: { kind: 'staff' },
    response: { status: 200, schema: status },
    errors: [],
    handler: async ({ admin }) => {
      const now = new Date();
      const { identity, state } = admin.snapshot();
      const link = admin.link();
      const perMinute = admin.requests.perMinute();
      return {
        server_id: identity.serverId,
        name: identity.name,
        versions: { modgate: packageJson.version, api: API_VERSION, protocol: [...SUPPORTED_VERSIONS] },
        started_at: admin.startedAt.toISOString(),
        uptime_seconds: Math.floor((now.getTime() - admin.startedAt.getTime()) / 1000),
        link: {
          connected: link.connected,
          mod_version: link.modVersion,
          since: link.since?.toISOString() ?? null,
        },
        players_online: await admin.playersOnline(),
        api: { enabled: state.apiEnabled },
        plan: {
          premium: state.plan.premium,
          until: state.plan.until?.toISOString() ?? null,
          features: [...state.plan.features],
          active: isPremiumActive(state.plan, now),
        },
        events: { last_id: admin.events.lastId(), oldest_id: admin.events.oldestId() },
        requests: {
          window_minutes: perMinute.length,
          totals: admin.requests.totals(),
          per_minute: perMinute,
        },
      };
    },
  }),
];
