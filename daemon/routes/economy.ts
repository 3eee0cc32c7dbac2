/**
 * The economy endpoints (api-v1.md "Shop coins", "In-game currency (cash, gold)",
 * "GET /v1/economy/transactions"); see docs/economy.md for the rules and the decisions taken
 * where the spec is silent.
 */
import { COIN_ROUTES } from './economy-coins.ts';
import { CURRENCY_ROUTES } from './economy-currency.ts';
import { listTransactions } from './economy-ledger.ts';

export const ECONOMY_ROUTES = [...COIN_ROUTES, ...CURRENCY_ROUTES, listTransactions];
