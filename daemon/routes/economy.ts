/**
 * The economy endpoints (docs/economy.md: shop coins, in-game currency, the
 * ledger); see there for the rules and the decisions taken
 * where the spec is silent.
 */
import { COIN_ROUTES } from './economy-coins.ts';
import { CURRENCY_ROUTES } from './economy-currency.ts';
import { listTransactions } from './economy-ledger.ts';

export const ECONOMY_ROUTES = [...COIN_ROUTES, ...CURRENCY_ROUTES, listTransactions];
