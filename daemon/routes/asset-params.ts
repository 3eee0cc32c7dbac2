/**
 * What the squad, base, vehicle and container routes share (docs/assets.md#ids and
 * docs/assets.md#filters): the `{id}` rule, the owner filters, numeric filters checked
 * in their exact text form, and read-cache tags.
 * Every id stays a decimal string: none of these converts an id to a JS number.
 */
import * as z from 'zod';
import {
  asParam,
  cursorParam,
  filterRules,
  integerParam,
  limitParam,
  platformIdParam,
  positiveIdParam,
  positiveIntegerParam,
  searchParam,
  socialIdParam,
} from './params.ts';
import { PLAYERS_TAG } from './players.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

/**
 * Read-cache tags (daemon/http/read-cache.ts). Every asset read carries `assets` and `players`:
 * owner and leader objects show a player's current social link and name, so any player write
 * (a link or unlink above all) drops them. Squad reads also carry `squads`: member rows and
 * summaries show presence and balances, so a write that moves money drops them.
 */
export const ASSET_TAG = 'assets';
export const SQUAD_TAG = 'squads';
export const ASSET_READ_TAGS: readonly string[] = [ASSET_TAG, PLAYERS_TAG];
export const SQUAD_READ_TAGS: readonly string[] = [ASSET_TAG, SQUAD_TAG, PLAYERS_TAG];

/** `{id}` of squads and bases: digits, first digit 1 to 9, else 400; an integer in the document. */
export const idParams = lazySchema(() =>
  z.object({ id: positiveIntegerParam.describe('Positive integer, no leading zeros') }).strict(),
);

/** `{id}` of vehicles and containers: the same digits, a string (entity ids can pass 2^53-1). */
export const entityIdParams = lazySchema(() =>
  z
    .object({ id: positiveIdParam.describe('Entity id: a decimal string, positive, no leading zeros') })
    .strict(),
);

/** A count filter: a non-negative integer in plain digits. */
export const countParam = asParam(
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,8})$/, 'a whole number from 0 to 999999999')
    .transform(Number),
  integerParam(0, 999_999_999),
);

/** A non-negative decimal such as `12` or `1500.25` (no sign, exponent or bare point). */
export const decimalParam = asParam(
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/, 'a non-negative decimal such as 1500.5')
    .transform(Number),
  { type: 'number', minimum: 0, exclusiveMaximum: 1e12, description: 'At most 6 decimals' },
);

/** Average element health: decimal text such as `0.25`, from 0.0 to 1.0. */
export const healthParam = asParam(
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,2})(\.[0-9]{1,6})?$/, 'a decimal such as 0.25')
    .transform(Number)
    .pipe(z.number().min(0, 'at least 0.0').max(1, 'at most 1.0'))
    .describe('Decimal from 0.0 to 1.0, at most 6 decimals'),
  { type: 'number', minimum: 0, maximum: 1 },
);

/** `active_within_days`: an integer >= 1. */
export const daysParam = asParam(
  z
    .string()
    .regex(/^[1-9][0-9]{0,5}$/, 'a whole number of days from 1 to 999999')
    .transform(Number),
  integerParam(1, 999_999),
);

export const boundedText = z.string().min(1).max(100);

/** The owner filters of the base, vehicle and container lists. */
export const ownerQuery = {
  owner_platform_id: platformIdParam.optional(),
  owner_social_id: socialIdParam.optional(),
  owner_name: boundedText.optional().describe('Exact character name (no substring match)'),
};

/**
 * The query of a list of owned things (bases, vehicles, containers): the owner filters, the
 * kind's own filters, `search` (described for the kind), `limit` and `cursor`, strict, and the
 * rules of docs/assets.md#filters over the owner's and the kind's filters.
 */
export function ownedListQuery<Own extends z.ZodRawShape>(own: Own, searchDescription: string) {
  const structured = [...Object.keys(ownerQuery), ...Object.keys(own)];
  return z
    .object({
      ...ownerQuery,
      ...own,
      search: searchParam.optional().describe(searchDescription),
      limit: limitParam(10, 100),
      cursor: cursorParam,
    })
    .strict()
    .superRefine(filterRules({ structured, pairs: [['owner_platform_id', 'owner_social_id']] }));
}

/** `min` may not exceed `max`, for each pair given both. */
export function rangeRules(pairs: ReadonlyArray<[string, string]>) {
  return (query: Record<string, unknown>, ctx: z.RefinementCtx) => {
    for (const [min, max] of pairs) {
      const low = query[min];
      const high = query[max];
      if (typeof low === 'number' && typeof high === 'number' && low > high) {
        ctx.addIssue({ code: 'custom', path: [min], message: `cannot exceed ${max}` });
      }
    }
  };
}
