/**
 * state.json: what the operator switches: whether the API is enabled (it ships disabled, spec
 * "General rules" 3) and the server's plan (premium, its end date, its features; rules 2 and
 * "Errors": premium_required).
 */
import * as z from 'zod';
import { DATA_FILES } from './data-dir-layout.ts';
import { defineDataFile, nullableDateField } from './data-file.ts';

/** Plan features the spec gates on ("for packs and claim codes, the plan lacks the pack/shop feature"). */
export const PLAN_FEATURES = ['shop'] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

export function isPlanFeature(value: string): value is PlanFeature {
  return (PLAN_FEATURES as readonly string[]).includes(value);
}

export interface Plan {
  readonly premium: boolean;
  /** The instant premium ends; null means no end date. */
  readonly until: Date | null;
  readonly features: readonly PlanFeature[];
}

export interface State {
  readonly apiEnabled: boolean;
  readonly plan: Plan;
}

export const INITIAL_STATE: State = Object.freeze({
  apiEnabled: false,
  plan: Object.freeze({ premium: false, until: null, features: Object.freeze([]) }),
});

const stateSchema = z
  .object({
    api_enabled: z.boolean(),
    plan: z.object({
      premium: z.boolean(),
      until: nullableDateField,
      features: z.array(z.enum(PLAN_FEATURES)),
    }),
  })
  .transform((file): State => ({
    apiEnabled: file.api_enabled,
    plan: { premium: file.plan.premium, until: file.plan.until, features: file.plan.features },
  }));

export const stateFile = defineDataFile<State>({
  name: DATA_FILES.state,
  schema: stateSchema,
  serialize: (state) => ({
    api_enabled: state.apiEnabled,
    plan: {
      premium: state.plan.premium,
      until: state.plan.until?.toISOString() ?? null,
      features: [...state.plan.features],
    },
  }),
});

/** Premium is on and has not reached its end date. */
export function isPremiumActive(plan: Plan, now: Date): boolean {
  return plan.premium && (plan.until === null || plan.until.getTime() > now.getTime());
}

/** The plan is active and includes `feature`. */
export function hasFeature(plan: Plan, feature: PlanFeature, now: Date): boolean {
  return isPremiumActive(plan, now) && plan.features.includes(feature);
}
