/**
 * Shop coins (docs/economy.md#shop-coins): the shop's own balance, changed directly (not through the
 * console). Every change writes one ledger row with source `api` and the key's actor.
 *
 * - One player: a credit to a well-formed platform id nobody has creates the player; a debit to
 *   an unknown player is `not_found`; a debit above the balance is `conflict` and changes nothing.
 * - Everyone: `all` (every player on record) or `online` (mods from 2.0.30; `unsupported` before,
 *   never applied to everyone). Bulk changes share one game-wide cooldown (`rate_limited` with
 *   `retry_after_sec`). A bulk debit stops at zero; affected_count counts balances that changed.
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpResult } from '../../protocol/ops/index.ts';
import { ledgerActor } from '../console/ledger-rows.ts';
import type { LedgerEntry, Player, World } from '../world/index.ts';
import { cleanModeration, playerRefs, sqlDateTime } from '../world/index.ts';
import { type ArgsOf, findPlayer, notFound, sourceOf } from './players-common.ts';

/** The game's integers are 32-bit; a balance never passes this. */
export const COIN_MAX = 0x7fff_ffff;
/** The shared cooldown between two bulk coin changes (docs/economy.md#shop-coins). */
export const BULK_COIN_COOLDOWN_MS = 5_000;

interface CoinState {
  /** When the next bulk change may run, on the cooldown clock (epoch ms). */
  bulkReadyAt: number;
}

/** Per world, like the console's state, so every simulator on one world shares the cooldown. */
const states = new WeakMap<World, CoinState>();

function coinState(world: World): CoinState {
  let state = states.get(world);
  if (state === undefined) {
    state = { bulkReadyAt: Number.NEGATIVE_INFINITY };
    states.set(world, state);
  }
  return state;
}

/** Ends the bulk coin cooldown now (tests; an operator's reset). */
export function clearBulkCoinCooldown(world: World): void {
  coinState(world).bulkReadyAt = Number.NEGATIVE_INFINITY;
}

/**
 * A player created by a coin credit to a platform id that never joined: the shop knows the id
 * only, so both names stay empty, and the record does not count as a join (no social link).
 */
export function enrolPlayer(world: World, platformId: string): Player {
  const ordinal = world.players.size;
  const now = sqlDateTime(world.clock());
  const player: Player = {
    platform_id: platformId,
    social_id: null,
    user_profile_id: ordinal + 1,
    platform_name: '',
    char_name: '',
    online: false,
    squad: null,
    money: 0,
    gold: 0,
    coins: 0,
    fame_points: 0,
    attributes: { strength: 1, constitution: 1, dexterity: 1, intelligence: 1 },
    play_time: 0,
    is_admin: false,
    last_seen: now,
    created_at: now,
    cash_on_hand: 0,
    live: null,
    moderation: cleanModeration(),
    ordinal,
    refs: playerRefs({
      platform_id: platformId,
      social_id: null,
      user_profile_id: ordinal + 1,
      char_name: '',
    }),
  };
  world.players.add(player, { joined: false });
  return player;
}

type Actor = ArgsOf<'economy.coins'>['actor'];

function coinRow(world: World, actor: Actor, reason: string, row: Partial<LedgerEntry>): LedgerEntry {
  return world.ledger.append({
    at: world.ledger.stampAt(world.clock()),
    player: null,
    actor: ledgerActor(actor),
    asset: 'coins',
    mode: 'delta',
    amount: 0,
    balance_before: null,
    balance_after: null,
    scope: 'player',
    affected_count: null,
    source: sourceOf(actor),
    reason,
    pack_name: null,
    ...row,
  });
}

/** `economy.coins`: credit or debit one player's coins. */
export function changeCoins(world: World, args: ArgsOf<'economy.coins'>): OpResult<'economy.coins'> {
  const { ref, amount } = args;
  let player = findPlayer(world, ref);
  if (player === undefined) {
    if (!('platform_id' in ref)) throw notFound(ref);
    if (amount < 0) {
      throw new OpError('not_found', `no player with platform id ${ref.platform_id}: nothing to debit`);
    }
    player = enrolPlayer(world, ref.platform_id);
  }
  const before = player.coins;
  const after = before + amount;
  if (after < 0) {
    throw new OpError(
      'conflict',
      `Insufficient coins: player ${player.platform_id} has ${before}, cannot debit ${-amount}`,
    );
  }
  if (after > COIN_MAX) throw new OpError('invalid', `The coin balance would pass ${COIN_MAX} (${after})`);
  player.coins = after;
  coinRow(world, args.actor, args.reason, {
    player: player.refs.identity,
    amount,
    balance_before: before,
    balance_after: after,
  });
  return { amount, balance: after, player: { ...player.refs.identity } };
}

/** `economy.coins_all`: credit or debit everyone's coins, once per cooldown. */
export function changeCoinsAll(
  world: World,
  args: ArgsOf<'economy.coins_all'>,
  now: () => number,
): OpResult<'economy.coins_all'> {
  const { amount, target } = args;
  if (target === 'online' && !world.features.coinsTargetOnline) {
    throw new OpError('unsupported', `target online needs mod 2.0.30 or later (this is ${world.modVersion})`);
  }
  const state = coinState(world);
  const left = state.bulkReadyAt - now();
  if (left > 0) {
    const seconds = Math.max(1, Math.ceil(left / 1000));
    throw new OpError('rate_limited', `Bulk coin changes share a cooldown: try again in ${seconds} s`, {
      retry_after_sec: seconds,
    });
  }
  const players = target === 'online' ? world.players.online() : world.players.list.values();
  let affected = 0;
  for (const player of players) {
    const next = Math.min(COIN_MAX, Math.max(0, player.coins + amount));
    if (next === player.coins) continue;
    player.coins = next;
    affected++;
  }
  state.bulkReadyAt = now() + BULK_COIN_COOLDOWN_MS;
  coinRow(world, args.actor, args.reason, { amount, scope: target, affected_count: affected });
  return { amount, affected_count: affected, target };
}
