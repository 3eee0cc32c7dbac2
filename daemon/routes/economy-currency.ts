/**
 * In-game currency (docs/economy.md#in-game-currency-cash-gold): the game runs a console command
 * for each change, so it is in the command history under the key's actor and in the ledger with
 * source `api`. `mode` says how `amount` reads: `delta` (default) any non-zero integer, `set` any
 * integer >= 0. Decisions where the spec is silent are in docs/economy.md.
 */
import * as z from 'zod';
import { BulkCurrencyChange, CURRENCIES, CurrencyChange } from '../../protocol/ops/economy.ts';
import { defineRoute } from '../http/define-route.ts';
import {
  amountField,
  balanceWrite,
  lenientRefParam,
  reasonField,
  resolveLenientRef,
  targetField,
} from './economy-common.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const fields = {
  currency: z.enum(CURRENCIES).describe('cash (the bank balance) or gold'),
  amount: amountField.describe('delta: non-zero, signed (a debit may go below 0); set: 0 or more'),
  mode: z.enum(['delta', 'set']).optional().meta({ description: 'Default: delta', default: 'delta' }),
  reason: reasonField,
};

/** docs/economy.md#in-game-currency-cash-gold: amount 0 in delta mode and a negative amount in set mode are 400. */
function modeRule(body: { amount: number; mode?: 'delta' | 'set' | undefined }, ctx: z.RefinementCtx) {
  if ((body.mode ?? 'delta') === 'delta' && body.amount === 0) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: 'must not be 0 in delta mode' });
  }
  if (body.mode === 'set' && body.amount < 0) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: 'must be 0 or more in set mode' });
  }
}

/** `modeRule` in JSON Schema, for /openapi.json. */
const MODE_RULE = {
  if: { properties: { mode: { const: 'set' } }, required: ['mode'] },
  then: { properties: { amount: { minimum: 0 } } },
  else: { properties: { amount: { not: { const: 0 } } } },
};

const CurrencyBody = lazySchema(() =>
  z
    .object(fields)
    .strict()
    .superRefine(modeRule)
    .meta({ id: 'CurrencyRequest', ...MODE_RULE }),
);
const BulkCurrencyBody = lazySchema(() =>
  z
    .object({ ...fields, target: targetField })
    .strict()
    .superRefine(modeRule)
    .meta({ id: 'BulkCurrencyRequest', ...MODE_RULE }),
);

export const changePlayerCurrency = defineRoute({
  method: 'POST',
  path: '/v1/players/{ref}/currency',
  operationId: 'changePlayerCurrency',
  summary: "Change a connected player's cash or gold (409 when offline); a malformed ref is 404",
  tag: 'In-game currency',
  scope: 'currency:write',
  params: () => z.object({ ref: lenientRefParam }),
  body: CurrencyBody,
  response: { status: 200, schema: CurrencyChange },
  cache: { kind: 'no-store' },
  errors: ['conflict', 'server_unavailable', 'gateway_timeout'],
  handler: (ctx) => {
    const ref = resolveLenientRef(ctx.params.ref);
    return balanceWrite(ctx, () =>
      ctx.call('economy.currency', {
        ref,
        currency: ctx.body.currency,
        mode: ctx.body.mode ?? 'delta',
        amount: ctx.body.amount,
        reason: ctx.body.reason,
        actor: ctx.actor,
      }),
    );
  },
});

export const changeAllCurrency = defineRoute({
  method: 'POST',
  path: '/v1/economy/currency',
  operationId: 'changeAllCurrency',
  summary: "Change everyone's cash or gold; a connected player must relay it (409 when nobody is)",
  tag: 'In-game currency',
  scope: 'currency:write_all',
  body: BulkCurrencyBody,
  response: { status: 200, schema: BulkCurrencyChange },
  cache: { kind: 'no-store' },
  errors: ['conflict', 'server_unavailable', 'gateway_timeout'],
  handler: (ctx) =>
    balanceWrite(ctx, () =>
      ctx.call('economy.currency_all', {
        currency: ctx.body.currency,
        mode: ctx.body.mode ?? 'delta',
        amount: ctx.body.amount,
        reason: ctx.body.reason,
        target: ctx.body.target ?? 'all',
        actor: ctx.actor,
      }),
    ),
});

export const CURRENCY_ROUTES = [changePlayerCurrency, changeAllCurrency];
