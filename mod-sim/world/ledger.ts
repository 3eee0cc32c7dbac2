/**
 * The economy ledger, stored as columns and materialised on read.
 *
 * A large world has millions of entries, so the generated history lives in typed arrays (34
 * bytes an entry: 1.5M entries ≈ 51 MB) and each entry object is built when a page needs it.
 * Entries written at run time are appended as objects. Entry ids are `seq + 1` as decimal
 * strings, increasing with time, so a position is found from an id in O(1) and a date bound by
 * binary search over the time column; a per-player filter uses a posting list built on first use.
 * Pages are newest first.
 */
import type { GameEvents } from './game-events.ts';
import type { LedgerAsset, LedgerEntry, LedgerScope, LedgerSource } from './economy-types.ts';
import { compareDecimalStrings, descending } from './keyset.ts';
import type { KeysetPage, SortedView } from './keyset.ts';
import { LEDGER_KINDS } from './ledger-kinds.ts';
import type { LedgerKind } from './ledger-kinds.ts';
import { parseSqlDateTime, sqlDateTime } from './time.ts';
import type { Player } from './types.ts';

/** Stored in a balance column for "null" (unknown balance). */
export const NULL_BALANCE = -0x8000_0000;

export interface LedgerColumns {
  count: number;
  /** Epoch seconds that `time` counts from. */
  baseSec: number;
  time: Uint32Array;
  kind: Uint8Array;
  /** 0 delta, 1 set. */
  mode: Uint8Array;
  /** Player ordinal; -1 on bulk entries. */
  player: Int32Array;
  /** Actor ordinal; -1 when automatic. */
  actor: Int32Array;
  amount: Int32Array;
  before: Int32Array;
  after: Int32Array;
  /** -1 for null. */
  affected: Int32Array;
  /** Pack id named by pack_name; -1 for none. */
  pack: Int32Array;
}

export interface LedgerResolver {
  playerAt(ordinal: number): Player | undefined;
  ordinalOf(platformId: string): number | undefined;
  packName(id: number): string | null;
}

/** Spec query filters of GET /v1/economy/transactions; dates inclusive, `YYYY-MM-DD HH:MM:SS`. */
export interface LedgerFilter {
  platform_id?: string | undefined;
  asset?: LedgerAsset | undefined;
  source?: LedgerSource | undefined;
  scope?: LedgerScope | undefined;
  start_date?: string | undefined;
  end_date?: string | undefined;
}

export interface LedgerQuery {
  after?: string | undefined;
  limit: number;
  filter?: LedgerFilter | undefined;
}

const orNull = (value: number): number | null => (value === NULL_BALANCE ? null : value);

export class Ledger implements SortedView<LedgerEntry, string> {
  readonly compareKeys = descending(compareDecimalStrings);
  readonly #appended: LedgerEntry[] = [];
  readonly #appendedMs: number[] = [];
  #postings: { offsets: Int32Array; seqs: Int32Array } | undefined;
  /** Where run-time movements are reported (`economy.changed`); set by createWorld. */
  events: GameEvents | null = null;
  readonly #cols: LedgerColumns;
  readonly #resolver: LedgerResolver;

  constructor(cols: LedgerColumns, resolver: LedgerResolver) {
    this.#cols = cols;
    this.#resolver = resolver;
  }

  get length(): number {
    return this.#cols.count + this.#appended.length;
  }

  /** Entry by chronological position (0 = oldest). */
  entry(seq: number): LedgerEntry {
    if (seq >= this.#cols.count) {
      const entry = this.#appended[seq - this.#cols.count];
      if (entry === undefined) throw new RangeError(`ledger position ${seq} out of range`);
      return entry;
    }
    return this.#materialise(seq);
  }

  itemAt(index: number): LedgerEntry {
    return this.entry(this.length - 1 - index);
  }

  keyAt(index: number): string {
    return String(this.length - index);
  }

  /**
   * The `at` for a movement recorded at `ms` (epoch ms): never before the newest entry, so the
   * time column stays ordered for the date bounds' binary search.
   */
  stampAt(ms: number): string {
    const newest = this.length === 0 ? ms : this.#timeMs(this.length - 1);
    return sqlDateTime(Math.max(ms, newest));
  }

  /** Records a new movement (time must not precede the last entry); returns it with its id. */
  append(draft: Omit<LedgerEntry, 'id'>): LedgerEntry {
    const ms = parseSqlDateTime(draft.at);
    if (Number.isNaN(ms)) throw new RangeError(`bad ledger time '${draft.at}'`);
    const entry: LedgerEntry = { id: String(this.length + 1), ...draft };
    this.#appended.push(entry);
    this.#appendedMs.push(ms);
    this.events?.emit('economy.changed', { ...entry });
    return entry;
  }

  /** One newest-first page; see the file comment for what each filter costs. */
  query(query: LedgerQuery): KeysetPage<LedgerEntry, string> {
    const filter = query.filter ?? {};
    const { limit } = query;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer`);
    const [low, high] = this.#bounds(query.after, filter);
    const ordinal =
      filter.platform_id === undefined ? undefined : this.#resolver.ordinalOf(filter.platform_id);
    const items: LedgerEntry[] = [];
    for (const seq of this.#candidates(low, high, filter.platform_id, ordinal)) {
      if (!this.#matches(seq, filter)) continue;
      if (items.length === limit)
        return { items, hasMore: true, nextAfter: (items[limit - 1] as LedgerEntry).id };
      items.push(this.entry(seq));
    }
    return { items, hasMore: false, nextAfter: null };
  }

  /** The chronological range [low, high) the page may draw from. */
  #bounds(after: string | undefined, filter: LedgerFilter): [number, number] {
    let high = this.length;
    if (after !== undefined) {
      if (!/^\d{1,15}$/.test(after)) throw new RangeError(`bad ledger key '${after}'`);
      high = Math.min(high, Math.max(0, Number(after) - 1));
    }
    const start = filter.start_date === undefined ? Number.NaN : parseSqlDateTime(filter.start_date);
    const end = filter.end_date === undefined ? Number.NaN : parseSqlDateTime(filter.end_date);
    const low = Number.isNaN(start) ? 0 : this.#firstAtOrAfter(start);
    if (!Number.isNaN(end)) high = Math.min(high, this.#firstAtOrAfter(end + 1000));
    return [low, Math.max(low, high)];
  }

  #timeMs(seq: number): number {
    if (seq < this.#cols.count) return ((this.#cols.time[seq] as number) + this.#cols.baseSec) * 1000;
    return this.#appendedMs[seq - this.#cols.count] as number;
  }

  #firstAtOrAfter(ms: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#timeMs(mid) < ms) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Positions in [low, high), newest first: the appended tail, then the generated part. */
  *#candidates(low: number, high: number, platformId?: string, ordinal?: number): Generator<number> {
    const count = this.#cols.count;
    for (let seq = high - 1; seq >= Math.max(low, count); seq--) yield seq;
    const top = Math.min(high, count);
    if (platformId === undefined) {
      for (let seq = top - 1; seq >= low; seq--) yield seq;
      return;
    }
    if (ordinal === undefined) return;
    const { offsets, seqs } = this.#postingLists();
    const first = offsets[ordinal] ?? 0;
    const end = offsets[ordinal + 1] ?? first;
    for (let at = end - 1; at >= first; at--) {
      const seq = seqs[at] as number;
      if (seq < low) return;
      if (seq < top) yield seq;
    }
  }

  #matches(seq: number, filter: LedgerFilter): boolean {
    if (seq >= this.#cols.count) {
      const entry = this.entry(seq);
      return (
        (filter.platform_id === undefined || entry.player?.platform_id === filter.platform_id) &&
        (filter.asset === undefined || entry.asset === filter.asset) &&
        (filter.source === undefined || entry.source === filter.source) &&
        (filter.scope === undefined || entry.scope === filter.scope)
      );
    }
    const kind = LEDGER_KINDS[this.#cols.kind[seq] as number] as LedgerKind;
    return (
      (filter.asset === undefined || kind.asset === filter.asset) &&
      (filter.source === undefined || kind.source === filter.source) &&
      (filter.scope === undefined || kind.scope === filter.scope)
    );
  }

  /**
   * Generated positions grouped by player ordinal (CSR layout): player p's positions, ascending,
   * are seqs[offsets[p]] up to seqs[offsets[p + 1]]. Built on the first per-player query.
   */
  #postingLists(): { offsets: Int32Array; seqs: Int32Array } {
    if (this.#postings !== undefined) return this.#postings;
    const { player, count } = this.#cols;
    let players = 0;
    for (let seq = 0; seq < count; seq++) players = Math.max(players, (player[seq] as number) + 1);
    const offsets = new Int32Array(players + 1);
    for (let seq = 0; seq < count; seq++) {
      const p = player[seq] as number;
      if (p >= 0) offsets[p + 1] = (offsets[p + 1] as number) + 1;
    }
    for (let p = 0; p < players; p++) offsets[p + 1] = (offsets[p + 1] as number) + (offsets[p] as number);
    const next = offsets.slice(0, players);
    const seqs = new Int32Array(offsets[players] as number);
    for (let seq = 0; seq < count; seq++) {
      const p = player[seq] as number;
      if (p < 0) continue;
      seqs[next[p] as number] = seq;
      next[p] = (next[p] as number) + 1;
    }
    this.#postings = { offsets, seqs };
    return this.#postings;
  }

  #materialise(seq: number): LedgerEntry {
    const c = this.#cols;
    const kind = LEDGER_KINDS[c.kind[seq] as number] as LedgerKind;
    const player = this.#resolver.playerAt(c.player[seq] as number);
    const actor = this.#resolver.playerAt(c.actor[seq] as number);
    const pack = c.pack[seq] as number;
    const affected = c.affected[seq] as number;
    return {
      id: String(seq + 1),
      at: sqlDateTime(((c.time[seq] as number) + c.baseSec) * 1000),
      player: player?.refs.identity ?? null,
      actor: actor?.refs.identity ?? null,
      asset: kind.asset,
      mode: c.mode[seq] === 1 ? 'set' : 'delta',
      amount: c.amount[seq] as number,
      balance_before: orNull(c.before[seq] as number),
      balance_after: orNull(c.after[seq] as number),
      scope: kind.scope,
      affected_count: affected < 0 ? null : affected,
      source: kind.source,
      reason: kind.reason,
      pack_name: pack < 0 ? null : this.#resolver.packName(pack),
    };
  }
}
