/**
 * Economy ops (PROTOCOL §6): shop coins for one player or everyone, in-game currency (cash, gold)
 * for one player or everyone, and the economy ledger. Shapes are the spec's ("Shop coins",
 * "In-game currency", "Economy ledger entry"); the four writes mutate and carry an op id, so a
 * retry never pays twice (PROTOCOL §6.4).
 */
import * as z from 'zod';
import { defineOp, writeOp as write } from './define.ts';
import { PlayerRef, WriteActor } from './players.ts';
import { DECIMAL_ID, Identity, opPage, pageArgs, platformId, sqlDateTime } from './schemas.ts';
import { lazySchema } from '../lazy-schema.ts';

/** The game keeps balances and amounts in 32-bit integers. */
export const AMOUNT_MIN = -0x8000_0000;
export const AMOUNT_MAX = 0x7fff_ffff;

export const LEDGER_ASSETS = ['cash', 'gold', 'coins'] as const;
export const LEDGER_MODES = ['delta', 'set'] as const;
export const LEDGER_SCOPES = ['player', 'all', 'online'] as const;
export const LEDGER_SOURCES = [
  'api',
  'panel',
  'social_bank',
  'social_cmd',
  'pack',
  'claim',
  'task',
  'leaderboard',
  'system',
] as const;
export const CURRENCIES = ['cash', 'gold'] as const;
export const BULK_TARGETS = ['all', 'online'] as const;

const amount = z.number().int().min(AMOUNT_MIN).max(AMOUNT_MAX);
/** 1 to 500 characters at the API, counted in code points: at most 1,000 UTF-16 units here. */
const reason = z.string().min(1).max(1_000);
const transactionId = z.string().regex(DECIMAL_ID).describe('The ledger entry id of the change');

export const LedgerEntry = lazySchema(() =>
  z
    .object({
      id: z.string().regex(DECIMAL_ID).describe('Decimal string, increasing with time'),
      at: sqlDateTime,
      player: Identity.nullable().describe('Null on a bulk entry'),
      actor: Identity.nullable().describe('Null when automatic (kill reward, scheduled charge)'),
      asset: z.enum(LEDGER_ASSETS),
      mode: z.enum(LEDGER_MODES),
      amount: z.number().int(),
      balance_before: z
        .number()
        .int()
        .nullable()
        .describe('Null on a bulk entry, or when the player left before the balance was read back'),
      balance_after: z.number().int().nullable().describe('Null like balance_before: unknown, not zero'),
      scope: z.enum(LEDGER_SCOPES),
      affected_count: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .describe('Players a bulk coin change reached'),
      source: z.enum(LEDGER_SOURCES),
      reason: z.string(),
      pack_name: z.string().nullable(),
    })

    .meta({ id: 'LedgerEntry' }),
);

/** Both in-game balances of one player. */
export const Balances = lazySchema(() =>
  z
    .object({ cash: z.number().int(), gold: z.number().int() })

    .meta({ id: 'CurrencyBalances' }),
);

export const CoinChange = lazySchema(() =>
  z
    .object({
      amount: z.number().int().describe('The signed amount sent'),
      balance: z.number().int().nonnegative().describe('Coins after the change'),
      player: Identity,
    })

    .meta({ id: 'CoinChange' }),
);

export const BulkCoinChange = lazySchema(() =>
  z
    .object({
      amount: z.number().int(),
      affected_count: z.number().int().nonnegative().describe('Players whose balance changed'),
      target: z.enum(BULK_TARGETS),
    })

    .meta({ id: 'BulkCoinChange' }),
);

export const CurrencyChange = lazySchema(() =>
  z
    .object({
      player: Identity,
      currency: z.enum(CURRENCIES),
      mode: z.enum(LEDGER_MODES),
      amount: z.number().int(),
      balance_before: Balances(),
      balance: Balances().nullable().describe('Null when the player left mid-change (the change applied)'),
      transaction_id: transactionId,
    })

    .meta({ id: 'CurrencyChange' }),
);

export const BulkCurrencyChange = lazySchema(() =>
  z
    .object({
      currency: z.enum(CURRENCIES),
      mode: z.enum(LEDGER_MODES),
      amount: z.number().int(),
      target: z.enum(BULK_TARGETS),
      affected_count: z.null().describe('Always null: the game does not count who a bulk change reached'),
      transaction_id: transactionId,
    })

    .meta({ id: 'BulkCurrencyChange' }),
);

/** Coins for one player: a credit to a well-formed unknown platform id creates the player. */
export const economyCoins = write(
  'economy.coins',
  () =>
    z
      .object({
        ref: PlayerRef,
        amount: amount.refine((n) => n !== 0, 'must not be 0'),
        reason,
        actor: WriteActor,
      })
      .describe(
        'Signed change of shop coins. A debit above the balance is conflict and changes nothing; a credit to an unknown platform id creates the player. Applied once per op_id (PROTOCOL §6.4, §6.6).',
      ),
  CoinChange,
);

/** Coins for everyone on record or everyone online; a game-wide cooldown (`rate_limited`). */
export const economyCoinsAll = write(
  'economy.coins_all',
  () =>
    z.object({
      amount: amount.refine((n) => n !== 0, 'must not be 0'),
      reason,
      target: z.enum(BULK_TARGETS),
      actor: WriteActor,
    }),
  BulkCoinChange,
);

const currencyFields = {
  currency: z.enum(CURRENCIES),
  mode: z.enum(LEDGER_MODES),
  amount,
  reason,
  actor: WriteActor,
};

/** Cash or gold of one connected player, through the game's console. */
export const economyCurrency = write(
  'economy.currency',
  () =>
    z
      .object({ ref: PlayerRef, ...currencyFields })
      .describe(
        'mode delta adds amount (non-zero; may go below zero), mode set sets the balance to amount (0 or more). The player must be online, else conflict. balance_before is read before, balance after (nil if the player left meanwhile) (PROTOCOL §6.6).',
      ),
  CurrencyChange,
);

/** Cash or gold of everyone, through the game's console; a connected player must relay it. */
export const economyCurrencyAll = write(
  'economy.currency_all',
  () => z.object({ ...currencyFields, target: z.enum(BULK_TARGETS) }),
  BulkCurrencyChange,
);

/** The ledger, newest first; `after` is the id of the last entry of the previous page. */
export const economyTransactions = defineOp({
  name: 'economy.transactions',
  args: () =>
    z.object({
      platform_id: platformId.optional(),
      asset: z.enum(LEDGER_ASSETS).optional(),
      source: z.enum(LEDGER_SOURCES).optional(),
      scope: z.enum(LEDGER_SCOPES).optional(),
      /** Inclusive bounds, `YYYY-MM-DD HH:MM:SS`. */
      start_date: sqlDateTime.optional(),
      end_date: sqlDateTime.optional(),
      ...pageArgs,
    }),
  result: () => opPage(LedgerEntry(), false),
  deadlineMs: 5_000,
  mutates: false,
});

export const ECONOMY_OPS = {
  [economyCoins.name]: economyCoins,
  [economyCoinsAll.name]: economyCoinsAll,
  [economyCurrency.name]: economyCurrency,
  [economyCurrencyAll.name]: economyCurrencyAll,
  [economyTransactions.name]: economyTransactions,
} as const;
