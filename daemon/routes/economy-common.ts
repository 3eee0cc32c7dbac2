/**
 * What the economy routes share (docs/economy.md): the
 * amount and reason fields, the read-cache tags a balance change drops, the lenient `{ref}` of
 * the currency route, and the mod-version gate of bulk coins with `target: online`.
 */
import * as z from 'zod';
import { AMOUNT_MAX, AMOUNT_MIN } from '../../protocol/ops/economy.ts';
import { ApiError } from '../http/api-error.ts';
import { SQUAD_TAG } from './asset-params.ts';
import type { RouteContext } from '../http/define-route.ts';
import { asParam, type PlayerRef } from './params.ts';
import { PLAYERS_TAG } from './players.ts';

export const MAX_REASON = 500;

/**
 * Read-cache tags a balance change drops: roster rows, profiles and the online snapshot show
 * money, gold and coins (`players`); squad members and summaries show cash, bank money and gold
 * (`squads`).
 */
export const BALANCE_TAGS: readonly string[] = [PLAYERS_TAG, SQUAD_TAG];

/**
 * `reason`: 1 to 500 characters, counted as Unicode code points (as JSON Schema's maxLength
 * counts them), and not only whitespace (a blank reason is an empty one).
 */
export const reasonField = z
  .string()
  .min(1, 'required: 1 to 500 characters')
  .refine((text) => text.trim() !== '', 'cannot be blank')
  .refine((text) => [...text].length <= MAX_REASON, `at most ${MAX_REASON} characters`)
  .meta({ maxLength: MAX_REASON, description: 'Why: 1 to 500 characters, recorded in the ledger' });

/** A whole number within the game's 32-bit range. */
export const amountField = z
  .number({ error: 'a whole number' })
  .int('a whole number')
  .min(AMOUNT_MIN, `at least ${AMOUNT_MIN}`)
  .max(AMOUNT_MAX, `at most ${AMOUNT_MAX}`);

export const nonZeroAmount = amountField
  .refine((amount) => amount !== 0, 'must not be 0')
  .meta({ not: { const: 0 } });

export const targetField = z.enum(['all', 'online']).optional().meta({
  description: 'all (default): every player on record, online and offline; online: connected players only',
  default: 'all',
});

/**
 * Runs a balance write, then drops the cached reads that show balances, whatever the outcome: a
 * write that timed out may still have applied, and the caller must read its own write.
 */
export async function balanceWrite<T>(
  ctx: Pick<RouteContext<unknown, unknown, unknown>, 'invalidate'>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } finally {
    ctx.invalidate(BALANCE_TAGS);
  }
}

const REF = /^([0-9]{17}|social:[0-9]{17,20})$/;

/**
 * The currency route's `{ref}`: any text. docs/economy.md#in-game-currency-cash-gold makes a malformed
 * ref 404 not_found on the currency routes (not 400), so a malformed ref parses to null and the handler
 * answers 404 without asking the game (see `resolveLenientRef`).
 */
export const lenientRefParam = asParam(
  z
    .string()
    .transform((text): PlayerRef | null => {
      if (!REF.test(text)) return null;
      return text.startsWith('social:') ? { social_id: text.slice(7) } : { platform_id: text };
    })
    .describe('A 17-digit platform id or social:<17 to 20 digits>; anything else is 404'),
  { type: 'string', pattern: REF.source },
);

export function resolveLenientRef(ref: PlayerRef | null): PlayerRef {
  if (ref !== null) return ref;
  throw new ApiError(
    'not_found',
    'No such player: a player ref is a 17-digit platform id or social:<17 to 20 digit social id>.',
  );
}

/** The first mod version with bulk coins for `target: online` (mod-sim/mod-version.ts). */
export const COINS_ONLINE_SINCE = [2, 0, 30] as const;

const VERSION = /^(\d{1,9})(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?(-[0-9A-Za-z.-]+)?$/;

/**
 * True when the connected mod's version (from the handshake) is known and older than `minimum`;
 * a pre-release sorts before its release. An unknown or unreadable version is left to the mod,
 * which answers `unsupported` for what it cannot do.
 */
export function modOlderThan(version: string | null, minimum: readonly number[]): boolean {
  const match = version === null ? null : VERSION.exec(version);
  if (match === null) return false;
  const parts = [match[1], match[2], match[3], match[4]].map((part) => Number(part ?? 0));
  for (let i = 0; i < 4; i++) {
    const diff = (parts[i] as number) - (minimum[i] ?? 0);
    if (diff !== 0) return diff < 0;
  }
  return match[5] !== undefined;
}
