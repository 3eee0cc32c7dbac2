/**
 * Currency verbs, the path the in-game currency endpoints take (docs/economy.md#in-game-currency-cash-gold):
 * ChangeCurrencyBalance adds a signed amount, SetCurrencyBalance sets a balance of 0 or more.
 * `Normal` is the bank balance (roster `money`, ledger `cash`), `Gold` is gold. The player must be
 * connected. A debit may take the balance below zero, as the spec allows; a result outside the
 * game's 32-bit range is refused. Each change reports a CurrencyEffect with both balances before
 * and after, from which the engine writes the ledger row (ledger-rows.ts).
 * ChangeCurrencyBalanceForAll and SetCurrencyBalanceForAll do the same for everyone at once.
 */
import type { Player } from '../world/index.ts';
import { INT_MAX, INT_MIN } from './args.ts';
import {
  ok,
  refused,
  type BulkCurrencyEffect,
  type CurrencyEffect,
  type VerbBehaviour,
  type VerbRun,
} from './types.ts';
import { isPlayer, onlineSubject, playerLabel } from './verb-helpers.ts';

type Field = 'money' | 'gold';

const FIELD: Readonly<Record<string, Field>> = { Normal: 'money', Gold: 'gold' };

function balances(player: Player): { cash: number; gold: number } {
  return { cash: player.money, gold: player.gold };
}

function change(run: VerbRun, mode: 'delta' | 'set') {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const currency = run.args.text('currency');
  const field = FIELD[currency] as Field;
  const amount = run.args.number(mode === 'delta' ? 'amount' : 'value');
  if (mode === 'delta' && amount === 0) return refused('Amount must not be 0');
  if (mode === 'set' && amount < 0) return refused(`Balance cannot be set below 0 (${amount})`);
  const before = balances(player);
  const next = mode === 'delta' ? player[field] + amount : amount;
  if (next < INT_MIN || next > INT_MAX) {
    return refused(`${currency} balance of ${playerLabel(player)} would overflow (${next})`);
  }
  const old = player[field];
  player[field] = next;
  const effect: CurrencyEffect = {
    kind: 'currency',
    platform_id: player.platform_id,
    currency: field === 'money' ? 'cash' : 'gold',
    mode,
    amount,
    before,
    after: balances(player),
  };
  const verb = mode === 'delta' ? `Changed ${currency} balance` : `Set ${currency} balance`;
  const by = mode === 'delta' ? ` by ${amount > 0 ? '+' : ''}${amount}` : '';
  return ok(`${verb} of ${playerLabel(player)}${by}: ${old} -> ${next}`, [effect]);
}

/**
 * The bulk verbs: every player on record (`All`, the default) or every connected one (`Online`).
 * A connected player must carry the command (the catalogue's requires_online). Each balance is
 * kept within the game's 32-bit range; the game reports no count of who it reached.
 */
function changeAll(run: VerbRun, mode: 'delta' | 'set') {
  const currency = run.args.text('currency');
  const field = FIELD[currency] as Field;
  const amount = run.args.number(mode === 'delta' ? 'amount' : 'value');
  if (mode === 'delta' && amount === 0) return refused('Amount must not be 0');
  if (mode === 'set' && amount < 0) return refused(`Balance cannot be set below 0 (${amount})`);
  const online = run.args.has('players') && run.args.text('players') === 'Online';
  const players = online ? run.world.players.online() : run.world.players.list.values();
  for (const player of players) {
    const next = mode === 'delta' ? player[field] + amount : amount;
    player[field] = Math.min(INT_MAX, Math.max(INT_MIN, next));
  }
  const effect: BulkCurrencyEffect = {
    kind: 'currency_bulk',
    currency: field === 'money' ? 'cash' : 'gold',
    mode,
    amount,
    target: online ? 'online' : 'all',
  };
  const who = online ? 'online players' : 'all players';
  const what =
    mode === 'delta'
      ? `Changed ${currency} balance of ${who} by ${amount > 0 ? '+' : ''}${amount}`
      : `Set ${currency} balance of ${who} to ${amount}`;
  return ok(what, [effect]);
}

export const ECONOMY_VERBS: Readonly<Record<string, VerbBehaviour>> = {
  ChangeCurrencyBalance: (run) => change(run, 'delta'),
  SetCurrencyBalance: (run) => change(run, 'set'),
  ChangeCurrencyBalanceForAll: (run) => changeAll(run, 'delta'),
  SetCurrencyBalanceForAll: (run) => changeAll(run, 'set'),
};
