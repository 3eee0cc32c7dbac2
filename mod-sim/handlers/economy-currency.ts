/**
 * In-game currency (docs/economy.md#in-game-currency-cash-gold): cash and gold change by running the game's
 * own console command, so each change is in the command history with the key's actor, and the
 * console writes its ledger row (source `api`, the caller's reason; console/ledger-rows.ts).
 *
 * One player: ChangeCurrencyBalance / SetCurrencyBalance. A platform id is taken as is (a
 * well-formed id nobody has is simply not online); the player must be connected (`conflict`).
 * `balance` is read back after the change and is null when the player left in between.
 * Everyone: ChangeCurrencyBalanceForAll / SetCurrencyBalanceForAll, which a connected player must
 * relay (`conflict` when nobody is). Any other refusal by the game is `invalid`, with its text.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpResult } from '../../protocol/ops/index.ts';
import type { CommandConsole, ConsoleOutcome, ConsoleRequest } from '../console/index.ts';
import { NOBODY_ONLINE } from '../console/index.ts';
import type { Player, World } from '../world/index.ts';
import { type ArgsOf, findPlayer, notFound, sourceOf } from './players-common.ts';

/** The console's name of each currency. */
export const CONSOLE_CURRENCY = { cash: 'Normal', gold: 'Gold' } as const;

type Common = Pick<ArgsOf<'economy.currency'>, 'currency' | 'mode' | 'amount' | 'reason' | 'actor'>;

function request(
  args: Common,
  verb: string,
  words: string[],
  target: ConsoleRequest['target'],
): ConsoleRequest {
  return {
    verb,
    args: [CONSOLE_CURRENCY[args.currency], String(args.amount), ...words],
    target,
    actor: args.actor,
    source: sourceOf(args.actor),
    rank: 4,
    reason: args.reason,
  };
}

/** The one ledger row a successful change wrote; a refusal becomes the op's error. */
function applied(outcome: ConsoleOutcome, offline: () => boolean): { id: string; unknown: boolean } {
  const entry = outcome.ledger[0];
  if (outcome.success && entry !== undefined) return { id: entry.id, unknown: entry.balance_after === null };
  if (offline()) throw new OpError('conflict', outcome.result);
  throw new OpError('invalid', outcome.result);
}

function notOnline(player: Player | undefined, platformId: string): OpError {
  const who = player === undefined ? platformId : `${player.char_name} (${platformId})`;
  return new OpError('conflict', `Player ${who} is not online: cash and gold change only while connected`);
}

/** `economy.currency`: one connected player's cash or gold. */
export function changeCurrency(
  world: World,
  commands: CommandConsole,
  args: ArgsOf<'economy.currency'>,
): OpResult<'economy.currency'> {
  const { ref } = args;
  const player = findPlayer(world, ref);
  if (player === undefined && 'social_id' in ref) throw notFound(ref);
  const platformId = player?.platform_id ?? (ref as { platform_id: string }).platform_id;
  if (player === undefined || player.live === null) throw notOnline(player, platformId);
  const before = { cash: player.money, gold: player.gold };
  const verb = args.mode === 'delta' ? 'ChangeCurrencyBalance' : 'SetCurrencyBalance';
  const outcome = commands.execute(request(args, verb, [], { player: { platform_id: platformId } }));
  const row = applied(outcome, () => player.live === null);
  return {
    player: { ...player.refs.identity },
    currency: args.currency,
    mode: args.mode,
    amount: args.amount,
    balance_before: before,
    balance: row.unknown ? null : { cash: player.money, gold: player.gold },
    transaction_id: row.id,
  };
}

/** `economy.currency_all`: everyone's cash or gold, relayed by a connected player. */
export function changeCurrencyAll(
  world: World,
  commands: CommandConsole,
  args: ArgsOf<'economy.currency_all'>,
): OpResult<'economy.currency_all'> {
  const nobody = () => world.players.onlineCount() === 0;
  if (nobody()) throw new OpError('conflict', `${NOBODY_ONLINE}: nobody is connected to relay the change`);
  const verb = args.mode === 'delta' ? 'ChangeCurrencyBalanceForAll' : 'SetCurrencyBalanceForAll';
  const words = [args.target === 'online' ? 'Online' : 'All'];
  const outcome = commands.execute(request(args, verb, words, null));
  const row = applied(outcome, nobody);
  return {
    currency: args.currency,
    mode: args.mode,
    amount: args.amount,
    target: args.target,
    affected_count: null,
    transaction_id: row.id,
  };
}
