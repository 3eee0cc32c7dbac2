/**
 * Shop coins (docs/economy.md#shop-coins): one player's coins, everyone's coins. Both are mutating
 * ops the game applies once per op id, so a retry with the same Idempotency-Key never pays twice
 * (docs/economy.md). Both drop the cached reads that show balances.
 */
import * as z from 'zod';
import { BulkCoinChange, CoinChange } from '../../protocol/ops/economy.ts';
import { ApiError } from '../http/api-error.ts';
import { defineRoute } from '../http/define-route.ts';
import {
  COINS_ONLINE_SINCE,
  balanceWrite,
  modOlderThan,
  nonZeroAmount,
  reasonField,
  targetField,
} from './economy-common.ts';
import { playerRefParam } from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const CoinsBody = lazySchema(() =>
  z
    .object({
      amount: nonZeroAmount.describe('Signed, non-zero: positive credits, negative debits'),
      reason: reasonField,
    })
    .strict()
    .meta({ id: 'CoinsRequest' }),
);

const BulkCoinsBody = lazySchema(() =>
  z
    .object({
      amount: nonZeroAmount.describe('Signed, non-zero; a debit stops at a balance of 0'),
      reason: reasonField,
      target: targetField,
    })
    .strict()
    .meta({ id: 'BulkCoinsRequest' }),
);

export const changePlayerCoins = defineRoute({
  method: 'POST',
  path: '/v1/players/{ref}/coins',
  operationId: 'changePlayerCoins',
  summary:
    "Credit or debit one player's shop coins; a credit creates a never-seen platform id, a debit above the balance is 409",
  tag: 'Shop coins',
  scope: 'economy:write',
  params: () => z.object({ ref: playerRefParam.describe('A 17-digit platform id, or social:<social id>') }),
  body: CoinsBody,
  response: { status: 200, schema: CoinChange },
  cache: { kind: 'no-store' },
  errors: ['conflict', 'server_unavailable', 'gateway_timeout'],
  handler: (ctx) =>
    balanceWrite(ctx, () =>
      ctx.call('economy.coins', {
        ref: ctx.params.ref,
        amount: ctx.body.amount,
        reason: ctx.body.reason,
        actor: ctx.actor,
      }),
    ),
});

export const changeAllCoins = defineRoute({
  method: 'POST',
  path: '/v1/economy/coins',
  operationId: 'changeAllCoins',
  summary:
    "Credit or debit everyone's shop coins; one call per 5 s on the game server (429 with Retry-After)",
  tag: 'Shop coins',
  scope: 'economy:write_all',
  body: BulkCoinsBody,
  response: { status: 200, schema: BulkCoinChange },
  cache: { kind: 'no-store' },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: (ctx) => {
    const target = ctx.body.target ?? 'all';
    // Never let an old mod read `online` as everyone: refuse before anything reaches it.
    if (target === 'online' && modOlderThan(ctx.server.modVersion, COINS_ONLINE_SINCE)) {
      throw new ApiError(
        'not_found',
        `target online needs game mod ${COINS_ONLINE_SINCE.join('.')} or later; this server runs ${ctx.server.modVersion}. Nothing was changed.`,
      );
    }
    return balanceWrite(ctx, () =>
      ctx.call('economy.coins_all', {
        amount: ctx.body.amount,
        reason: ctx.body.reason,
        target,
        actor: ctx.actor,
      }),
    );
  },
});

export const COIN_ROUTES = [changePlayerCoins, changeAllCoins];
