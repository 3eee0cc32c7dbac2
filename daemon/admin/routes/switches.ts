/**
 * The operator's switches in state.json (docs/admin.md, "Plan and API switch"): GET|PUT
 * /admin/v1/plan and GET|PUT /admin/v1/api. A PUT writes state.json through the data dir and
 * applies it to the running daemon before answering: /v1 follows from the next request on.
 * The plan takes what `modgate plan set` takes (planInputSchema, daemon/store/state.ts).
 */
import * as z from 'zod';
import { isPremiumActive, planInputSchema, type Plan, stateFile, type State } from '../../store/state.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { adminNow } from '../services.ts';
import { planView } from './status.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

/** The /v1 switch as GET and PUT /admin/v1/api answer it; the CLI checks answers against it (cli/admin-answers.ts). */
export const apiSwitch = lazySchema(() =>
  z
    .object({ enabled: z.boolean().describe('Whether /v1 answers; disabled, every /v1 path is 404.') })
    .meta({ id: 'AdminApiSwitch' }),
);

function viewOfPlan(plan: Plan, now: Date): z.output<ReturnType<typeof planView>> {
  return {
    premium: plan.premium,
    until: plan.until?.toISOString() ?? null,
    features: [...plan.features],
    active: isPremiumActive(plan, now),
  };
}

export const switchRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/plan',
    operationId: 'getPlan',
    summary: "The server's plan",
    tag: 'Plan',
    access: { kind: 'owner' },
    response: { status: 200, schema: planView },
    errors: [],
    handler: async ({ admin }) => viewOfPlan(admin.snapshot().state.plan, adminNow(admin)),
  }),
  defineAdminRoute({
    method: 'PUT',
    path: '/admin/v1/plan',
    operationId: 'setPlan',
    summary: 'Replace the plan (an omitted until means no end; omitted features, none)',
    tag: 'Plan',
    access: { kind: 'owner' },
    body: planInputSchema,
    response: { status: 200, schema: planView },
    errors: [],
    handler: async ({ admin, body }) => {
      await admin.dataDir.update(stateFile, (state): State => ({ ...state, plan: body }));
      return viewOfPlan((await admin.apply('state')).state.plan, adminNow(admin));
    },
  }),
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/api',
    operationId: 'getApiSwitch',
    summary: 'Whether the /v1 API is enabled',
    tag: 'Plan',
    access: { kind: 'owner' },
    response: { status: 200, schema: apiSwitch },
    errors: [],
    handler: async ({ admin }) => ({ enabled: admin.snapshot().state.apiEnabled }),
  }),
  defineAdminRoute({
    method: 'PUT',
    path: '/admin/v1/api',
    operationId: 'setApiSwitch',
    summary: 'Enable or disable the /v1 API, at once',
    tag: 'Plan',
    access: { kind: 'owner' },
    body: () => z.object({ enabled: z.boolean() }).strict(),
    response: { status: 200, schema: apiSwitch },
    errors: [],
    handler: async ({ admin, body }) => {
      await admin.dataDir.update(stateFile, (state): State => ({ ...state, apiEnabled: body.enabled }));
      return { enabled: (await admin.apply('state')).state.apiEnabled };
    },
  }),
];
