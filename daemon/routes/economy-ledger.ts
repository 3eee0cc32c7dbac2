/**
 * The economy ledger (docs/economy.md#the-ledger): every
 * balance movement, coins and in-game currency, from every source, newest first. Never cached:
 * every request reaches the game. Keyset pages through authenticated cursors bound to the
 * filters; no total.
 */
import * as z from 'zod';
import { LEDGER_ASSETS, LEDGER_SCOPES, LEDGER_SOURCES, LedgerEntry } from '../../protocol/ops/economy.ts';
import { historyBound } from './commands.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import { cursorParam, dateOrder, limitParam, platformIdParam } from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const SQL_DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** `YYYY-MM-DD HH:MM:SS` and nothing else, naming a moment that exists (no 2025-02-30). */
const dateParam = z
  .string()
  .regex(SQL_DATE_TIME, 'YYYY-MM-DD HH:MM:SS')
  .refine((text) => historyBound(text, 'start') !== undefined, 'not a real date and time')
  .describe("Inclusive, YYYY-MM-DD HH:MM:SS on the game server's clock");

const LedgerQuery = lazySchema(() =>
  z
    .object({
      platform_id: platformIdParam.optional().describe('Entries of this player (bulk entries have none)'),
      asset: z.enum(LEDGER_ASSETS).optional(),
      source: z.enum(LEDGER_SOURCES).optional(),
      scope: z.enum(LEDGER_SCOPES).optional(),
      start_date: dateParam.optional(),
      end_date: dateParam.optional(),
      limit: limitParam(1, 100),
      cursor: cursorParam,
    })
    .strict()
    .superRefine(dateOrder),
);

export const listTransactions = defineRoute({
  method: 'GET',
  path: '/v1/economy/transactions',
  operationId: 'listTransactions',
  summary: 'The economy ledger: every balance movement from every source, newest first; never cached',
  tag: 'Economy ledger',
  scope: 'economy:read',
  query: LedgerQuery,
  response: {
    status: 200,
    schema: () => collection(LedgerEntry(), false, 'LedgerPage'),
  },
  cache: { kind: 'no-store' },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('economy.transactions', filters, { cursor, limit }),
});
