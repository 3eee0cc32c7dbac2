/**
 * Handlers for the economy ops (protocol/ops/economy.ts): shop coins in economy-coins.ts, cash
 * and gold through the console in economy-currency.ts, the ledger in economy-ledger.ts.
 *
 * Money moves here, so every write is applied at most once per op id (PROTOCOL §6.4): a retry of
 * a credit that timed out answers the first result and pays nothing again. A refused write (a
 * debit above the balance, a cooldown, an offline player) records nothing, so its retry is
 * evaluated afresh.
 */
import type { OpHandlers } from '../../protocol/ops/index.ts';
import type { CommandConsole } from '../console/index.ts';
import type { World } from '../world/index.ts';
import { changeCoins, changeCoinsAll } from './economy-coins.ts';
import { changeCurrency, changeCurrencyAll } from './economy-currency.ts';
import { listTransactions } from './economy-ledger.ts';
import { oncePerOpId } from './players.ts';

export type EconomyOpName =
  | 'economy.coins'
  | 'economy.coins_all'
  | 'economy.currency'
  | 'economy.currency_all'
  | 'economy.transactions';

export type EconomyHandlers = Pick<OpHandlers, EconomyOpName>;

export interface EconomyOptions {
  /** The clock of the bulk coin cooldown (epoch ms); default the wall clock, as the game's is. */
  now?: () => number;
}

export function economyHandlers(
  world: World,
  commands: CommandConsole,
  options: EconomyOptions = {},
): EconomyHandlers {
  const now = options.now ?? Date.now;
  return {
    'economy.coins': oncePerOpId(world, 'economy.coins', (args) => changeCoins(world, args)),
    'economy.coins_all': oncePerOpId(world, 'economy.coins_all', (args) => changeCoinsAll(world, args, now)),
    'economy.currency': oncePerOpId(world, 'economy.currency', (args) =>
      changeCurrency(world, commands, args),
    ),
    'economy.currency_all': oncePerOpId(world, 'economy.currency_all', (args) =>
      changeCurrencyAll(world, commands, args),
    ),
    'economy.transactions': (args) => listTransactions(world, args),
  };
}

export { BULK_COIN_COOLDOWN_MS, clearBulkCoinCooldown, enrolPlayer } from './economy-coins.ts';
