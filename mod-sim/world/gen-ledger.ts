/**
 * Ledger generation, into columns (see ledger.ts). Two passes:
 *
 * 1. Forward, oldest to newest: time, kind, player (one whose account existed then), actor, pack
 *    and amount of each entry. About 15 entries per player by default.
 * 2. Backward, newest to oldest: balances. Each player's chain per asset starts from their
 *    current balance, so the newest entry's balance_after is what the roster shows and each
 *    entry's balance_before is the next older one's balance_after. A credit larger than the
 *    balance it produced is scaled down, `set` amounts equal balance_after, and ~2% of entries
 *    have null balances (the player left before the read-back), where the chain may restart.
 *    Bulk entries are outside the chains: their balances are null and their effect on each
 *    player is not replayed (a simplification; their affected_count says how many they reached).
 */
import type { FeatureSet } from '../mod-version.ts';
import type { Pack } from './economy-types.ts';
import type { LedgerColumns } from './ledger.ts';
import { NULL_BALANCE } from './ledger.ts';
import { ASSET_INDEX, LEDGER_KINDS } from './ledger-kinds.ts';
import type { LedgerKind } from './ledger-kinds.ts';
import { weightTable } from './rng.ts';
import type { Rng, WeightTable } from './rng.ts';
import { parseSqlDateTime } from './time.ts';
import type { Player } from './types.ts';

export interface LedgerGenInput {
  count: number;
  players: readonly Player[];
  /** Every pack ever created, ascending id (created_at ascending too). */
  packs: readonly Pack[];
  openedAt: number;
  now: number;
  onlineShare: number;
}

function allocate(count: number, baseSec: number): LedgerColumns {
  return {
    count,
    baseSec,
    time: new Uint32Array(count),
    kind: new Uint8Array(count),
    mode: new Uint8Array(count),
    player: new Int32Array(count),
    actor: new Int32Array(count),
    amount: new Int32Array(count),
    before: new Int32Array(count).fill(NULL_BALANCE),
    after: new Int32Array(count).fill(NULL_BALANCE),
    affected: new Int32Array(count).fill(-1),
    pack: new Int32Array(count).fill(-1),
  };
}

function kindTable(features: FeatureSet, havePacks: boolean): WeightTable<number> {
  const table: [number, number][] = [];
  LEDGER_KINDS.forEach((kind, index) => {
    if (kind.gate !== undefined && !features[kind.gate]) return;
    if (kind.pack && !havePacks) return;
    table.push([index, kind.weight]);
  });
  return weightTable(table);
}

function drawAmount(rng: Rng, kind: LedgerKind, pack: Pack | undefined): number {
  if (kind.amount === 'price') return -(pack?.price ?? 100);
  const [low, high] = kind.amount;
  let amount = rng.int(low, high);
  while (amount === 0) amount = rng.int(low, high);
  return amount;
}

/** Pass 1: everything but balances. */
function forward(rng: Rng, input: LedgerGenInput, cols: LedgerColumns, features: FeatureSet): void {
  const { count, players, packs, openedAt, now } = input;
  const playerTimes = players.map((player) => parseSqlDateTime(player.created_at));
  const packTimes = packs.map((pack) => parseSqlDateTime(pack.created_at));
  const admins = players.filter((player) => player.is_admin).map((player) => player.ordinal);
  const table = kindTable(features, packs.length > 0);
  let playersKnown = 0;
  let packsKnown = 0;
  for (let seq = 0; seq < count; seq++) {
    const at = openedAt + ((seq + rng.float()) * (now - openedAt)) / count;
    while (playersKnown < players.length && (playerTimes[playersKnown] as number) <= at) playersKnown++;
    while (packsKnown < packs.length && (packTimes[packsKnown] as number) <= at) packsKnown++;
    const kindIndex = rng.weighted(table);
    const kind = LEDGER_KINDS[kindIndex] as LedgerKind;
    const ordinal = kind.scope === 'player' ? rng.int(0, Math.max(0, playersKnown - 1)) : -1;
    const pack = kind.pack ? packs[rng.int(0, Math.max(0, packsKnown - 1))] : undefined;
    cols.time[seq] = Math.floor(at / 1000) - cols.baseSec;
    cols.kind[seq] = kindIndex;
    cols.mode[seq] = kind.scope === 'player' && rng.chance(kind.setChance) ? 1 : 0;
    cols.player[seq] = ordinal;
    cols.actor[seq] =
      kind.actor === 'self' ? ordinal : kind.actor === 'admin' && admins.length > 0 ? rng.pick(admins) : -1;
    cols.amount[seq] = drawAmount(rng, kind, pack);
    cols.pack[seq] = pack?.id ?? -1;
    if (kind.scope !== 'player' && kind.asset === 'coins') {
      const share = kind.scope === 'all' ? 1 : input.onlineShare * rng.real(0.5, 1.5);
      cols.affected[seq] = Math.round(playersKnown * share);
    }
  }
}

/** Pass 2: balance chains, newest to oldest, starting from each player's current balances. */
function chainBalances(rng: Rng, cols: LedgerColumns, players: readonly Player[]): void {
  const running = new Float64Array(players.length * 3);
  for (const player of players) {
    running[player.ordinal * 3] = player.money;
    running[player.ordinal * 3 + 1] = player.gold;
    running[player.ordinal * 3 + 2] = player.coins;
  }
  for (let seq = cols.count - 1; seq >= 0; seq--) {
    const ordinal = cols.player[seq] as number;
    if (ordinal < 0) continue;
    const kind = LEDGER_KINDS[cols.kind[seq] as number] as LedgerKind;
    const slot = ordinal * 3 + ASSET_INDEX[kind.asset];
    const after = running[slot] as number;
    let before: number;
    if (cols.mode[seq] === 1) {
      cols.amount[seq] = after;
      before = rng.int(0, after * 2 + 100);
    } else {
      let amount = cols.amount[seq] as number;
      if (amount > after && after > 0) cols.amount[seq] = amount = rng.int(1, after);
      before = after - amount;
    }
    const unknown = before < 0 || rng.chance(0.02);
    if (!unknown) {
      cols.before[seq] = before;
      cols.after[seq] = after;
    }
    running[slot] = before < 0 ? 0 : before;
  }
}

/** The generated ledger's columns: `input.count` entries between openedAt and now. */
export function generateLedger(rng: Rng, input: LedgerGenInput, features: FeatureSet): LedgerColumns {
  const cols = allocate(input.count, Math.floor(input.openedAt / 1000));
  if (input.players.length === 0) return allocate(0, cols.baseSec);
  forward(rng, input, cols, features);
  chainBalances(rng, cols, input.players);
  return cols;
}
