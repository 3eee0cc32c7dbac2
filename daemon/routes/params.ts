/**
 * Query and path parameter schemas shared by the route table. Query values arrive as strings; each
 * helper checks the exact text form the spec allows before converting, so `limit=1e1` or
 * `limit= 10` are 400s rather than silently read as 10.
 *
 * What a parameter means (an integer from 1 to 100, a boolean) is declared beside it with
 * `asParam`, from the same numbers the check uses: /openapi.json shows that type, so a generated
 * client sends `limit: 10` and `online: true`, while the daemon keeps checking the text.
 */
import * as z from 'zod';

/** The JSON Schema a parameter is documented with, in place of its text form. */
export type ParamSchema = Record<string, unknown>;

/** Parameter schemas whose documented type is not their text form (read by daemon/openapi/openapi.ts). */
export const PARAM_SCHEMAS = z.registry<{ schema: ParamSchema }>();

/** Declares what the text a parameter schema checks means; returns the same schema. */
export function asParam<T extends z.ZodType>(schema: T, documented: ParamSchema): T {
  PARAM_SCHEMAS.add(schema, { schema: documented });
  return schema;
}

/** An integer parameter written in plain digits: its documented type. */
export function integerParam(minimum: number, maximum?: number, fallback?: number): ParamSchema {
  return {
    type: 'integer',
    minimum,
    ...(maximum === undefined ? {} : { maximum }),
    ...(fallback === undefined ? {} : { default: fallback }),
  };
}

/** `limit`: an integer in [min, max], default `fallback` (the page sizes of docs/assets.md, docs/packs.md). */
export function limitParam(min: number, max: number, fallback = 50) {
  const schema = z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/, `an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `at least ${min}`).max(max, `at most ${max}`))
    .optional()
    .transform((value) => value ?? fallback)
    .describe(`Page size, ${min} to ${max}; default ${fallback}`);
  return asParam(schema, integerParam(min, max, fallback));
}

export const cursorParam = z
  .string()
  .min(1)
  .max(2048)
  .optional()
  .describe('next_cursor from the previous page');

/** `true` or `false`, nothing else. */
export const booleanParam = asParam(
  z.enum(['true', 'false'], { error: 'true or false' }).transform((value) => value === 'true'),
  { type: 'boolean' },
);

export const PLATFORM_ID = /^[0-9]{17}$/;
export const SOCIAL_ID = /^[0-9]{17,20}$/;

export const platformIdParam = z.string().regex(PLATFORM_ID, 'a platform id: 17 digits');
export const socialIdParam = z.string().regex(SOCIAL_ID, 'a social id: 17 to 20 digits');
/** Any run of digits (the spec's "digits" filters). */
export const digitsParam = z.string().regex(/^[0-9]{1,20}$/, 'digits');

/**
 * `{id}` of squads, bases, vehicles, containers: a positive integer without leading zeros. It stays
 * a decimal string: entity ids can pass 2^53-1. `positiveIntegerParam` documents it as an integer
 * (squad, flag and pack ids: integers in the spec's resources).
 */
export const positiveIdParam = z
  .string()
  .regex(/^[1-9][0-9]{0,19}$/, 'a positive integer without leading zeros');

export const positiveIntegerParam = asParam(positiveIdParam.clone(), integerParam(1));

export const searchParam = z.string().min(1).max(100);

/** A player ref: a 17-digit platform id, or `social:` and a 17-20 digit social id. */
export type PlayerRef = { platform_id: string } | { social_id: string };

export const playerRefParam = z
  .string()
  .regex(/^([0-9]{17}|social:[0-9]{17,20})$/, 'a 17-digit platform id or social:<17 to 20 digits>')
  .transform((ref): PlayerRef =>
    ref.startsWith('social:') ? { social_id: ref.slice(7) } : { platform_id: ref },
  );

/**
 * docs/assets.md#filters: `search` cannot be combined with a structured filter, and a platform-id
 * filter cannot be combined with its social-id twin. Adds one issue per broken rule.
 */
export function filterRules(options: {
  structured: readonly string[];
  pairs?: ReadonlyArray<[string, string]>;
}) {
  return (query: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const given = (name: string) => query[name] !== undefined;
    const structured = options.structured.filter(given);
    if (given('search') && structured.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['search'],
        message: `cannot be combined with ${structured.join(', ')}`,
      });
    }
    for (const [platform, social] of options.pairs ?? []) {
      if (given(platform) && given(social)) {
        ctx.addIssue({ code: 'custom', path: [social], message: `cannot be combined with ${platform}` });
      }
    }
  };
}

/** A `start_date` after `end_date` is 400 (history and ledger filters); both are comparable text. */
export function dateOrder(
  query: { start_date?: string | undefined; end_date?: string | undefined },
  ctx: z.RefinementCtx,
) {
  if (query.start_date !== undefined && query.end_date !== undefined && query.start_date > query.end_date) {
    ctx.addIssue({ code: 'custom', path: ['start_date'], message: 'is after end_date' });
  }
}
