/**
 * Command history: entries kept oldest first, paged newest first. An entry has no id of its own,
 * so its key is its position in time order (`seq`, 0 = oldest), which appends never change.
 * `at` strings sort as text, so date bounds are binary searches; `command` is a substring scan.
 */
import type { GameEvents } from './game-events.ts';
import type { CommandHistoryEntry } from './command-types.ts';
import { compareNumbers, descending } from './keyset.ts';
import type { KeysetPage, SortedView } from './keyset.ts';

export interface CommandHistoryFilter {
  /** Text contained in the command. */
  command?: string | undefined;
  /** Inclusive; `YYYY-MM-DD` (00:00:00.000) or `YYYY-MM-DD HH:MM:SS[.mmm]`. */
  start_date?: string | undefined;
  /** Inclusive; `YYYY-MM-DD` (23:59:59.999) or `YYYY-MM-DD HH:MM:SS[.mmm]`. */
  end_date?: string | undefined;
}

const BOUND = /^(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}:\d{2})(\.\d{3})?)?$/;

/** Normalises a history date bound to the `at` form; throws RangeError on any other format. */
export function historyBound(text: string, edge: 'start' | 'end'): string {
  const match = BOUND.exec(text);
  if (match === null) throw new RangeError(`bad history date '${text}'`);
  const [, date, time, millis] = match;
  if (time === undefined) return `${date} ${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}`;
  return `${date} ${time}${millis ?? (edge === 'start' ? '.000' : '.999')}`;
}

export class CommandHistory implements SortedView<CommandHistoryEntry, number> {
  readonly compareKeys = descending(compareNumbers);
  readonly #entries: CommandHistoryEntry[];
  /** Where run-time commands are reported (`command.executed`); set by createWorld. */
  events: GameEvents | null = null;

  /** `entries` oldest first. */
  constructor(entries: CommandHistoryEntry[]) {
    this.#entries = entries;
  }

  get length(): number {
    return this.#entries.length;
  }

  itemAt(index: number): CommandHistoryEntry {
    return this.bySeq(this.#entries.length - 1 - index);
  }

  keyAt(index: number): number {
    return this.#entries.length - 1 - index;
  }

  bySeq(seq: number): CommandHistoryEntry {
    const entry = this.#entries[seq];
    if (entry === undefined) throw new RangeError(`history position ${seq} out of range`);
    return entry;
  }

  /** Adds the newest entry; returns its key. */
  append(entry: CommandHistoryEntry): number {
    this.#entries.push(entry);
    this.events?.emit('command.executed', { ...entry });
    return this.#entries.length - 1;
  }

  /** One newest-first page after key `after` (a seq). */
  query(
    after: number | undefined,
    limit: number,
    filter: CommandHistoryFilter = {},
  ): KeysetPage<CommandHistoryEntry, number> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    let high =
      after === undefined ? this.#entries.length : Math.max(0, Math.min(after, this.#entries.length));
    const low =
      filter.start_date === undefined ? 0 : this.#firstAtOrAfter(historyBound(filter.start_date, 'start'));
    if (filter.end_date !== undefined)
      high = Math.min(high, this.#firstAfter(historyBound(filter.end_date, 'end')));
    const items: CommandHistoryEntry[] = [];
    let lastSeq = -1;
    for (let seq = high - 1; seq >= low; seq--) {
      const entry = this.#entries[seq] as CommandHistoryEntry;
      if (filter.command !== undefined && !entry.command.includes(filter.command)) continue;
      if (items.length === limit) return { items, hasMore: true, nextAfter: lastSeq };
      items.push(entry);
      lastSeq = seq;
    }
    return { items, hasMore: false, nextAfter: null };
  }

  #firstAtOrAfter(at: string): number {
    return this.#search((entry) => entry.at < at);
  }

  #firstAfter(at: string): number {
    return this.#search((entry) => entry.at <= at);
  }

  /** First position where `before` turns false (it is true on a prefix). */
  #search(before: (entry: CommandHistoryEntry) => boolean): number {
    let low = 0;
    let high = this.#entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(this.#entries[mid] as CommandHistoryEntry)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
