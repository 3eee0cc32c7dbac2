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

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * A plan end date as `plan set --until` and PUT /admin/v1/plan take it: an ISO 8601 date
 * (2030-01-31 is 00:00 UTC) or date-time with a zone; null when it is neither or not on the
 * calendar (2030-02-30, which Date would roll over to March).
 */
export function parsePlanDate(text: string): Date | null {
  const match = ISO_DATE.exec(text);
  const date = new Date(text);
  if (match === null || Number.isNaN(date.getTime())) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  const onCalendar =
    probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
  return onCalendar ? date : null;
}

/** A whole plan as an operator sets it (PUT /admin/v1/plan): omitted `until` and `features` mean none. */
export const planInputSchema = z
  .object({
    premium: z.boolean(),
    until: z
      .string()
      .max(40)
      .nullable()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined || text === null) return null;
        const date = parsePlanDate(text);
        if (date === null) {
          ctx.addIssue({
            code: 'custom',
            message: 'expected an ISO 8601 date such as 2030-01-31 or 2030-01-31T18:00:00Z',
          });
          return z.NEVER;
        }
        return date;
      }),
    features: z
      .array(z.enum(PLAN_FEATURES))
      .max(PLAN_FEATURES.length)
      .optional()
      .transform((list) => PLAN_FEATURES.filter((feature) => (list ?? []).includes(feature))),
  })
  .strict()
  .transform((input): Plan => ({ premium: input.premium, until: input.until, features: input.features }));
