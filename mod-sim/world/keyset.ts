/**
 * Keyset pagination over lists kept in a stable order (page 1,000 costs what
 * page 1 costs).
 *
 * A list is a `SortedView`: items in page order, each with a unique key, and a comparator that
 * agrees with that order. A page "after key k" starts at the first item whose key sorts after k,
 * found by binary search; it never counts or skips the items before it. Without a filter a page
 * costs O(log n + limit). With a filter it costs O(log n + items examined): the scan stops at
 * `limit` matches plus one look-ahead match for `hasMore`, so a sparse filter can read to the end
 * of the list. The key need not still exist (the item may have been removed since): the page
 * simply starts at the next key in order.
 */

export type Compare<K> = (a: K, b: K) => number;

export interface SortedView<T, K> {
  readonly length: number;
  /** The item at `index` in page order; `index` is within [0, length). */
  itemAt(index: number): T;
  /** The key of the item at `index`, without necessarily materialising the item. */
  keyAt(index: number): K;
  /** Negative when a comes before b in page order, 0 when equal, positive after. */
  compareKeys(a: K, b: K): number;
}

export interface KeysetQuery<T, K> {
  /** Start after this key (exclusive); omit for the first page. */
  after?: K | undefined;
  /** Page size, a positive integer. */
  limit: number;
  /** Keep only matching items; the page still holds up to `limit` matches. */
  filter?: ((item: T) => boolean) | undefined;
}

export interface KeysetPage<T, K> {
  items: T[];
  /** True when at least one more (matching) item follows the page. */
  hasMore: boolean;
  /** The key to pass as `after` for the next page; null on the last page. */
  nextAfter: K | null;
}

export const compareNumbers: Compare<number> = (a, b) => a - b;

export const compareStrings: Compare<string> = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Orders unsigned decimal strings by numeric value without converting them to numbers, so ids
 * above 2^53 keep their exact order. Assumes no leading zeros.
 */
export const compareDecimalStrings: Compare<string> = (a, b) =>
  a.length !== b.length ? a.length - b.length : compareStrings(a, b);

/** The same order, reversed: for newest-first lists. */
export function descending<K>(compare: Compare<K>): Compare<K> {
  return (a, b) => compare(b, a);
}

/** Index of the first item whose key sorts strictly after `key`: O(log n). */
export function indexAfter<T, K>(view: SortedView<T, K>, key: K): number {
  let low = 0;
  let high = view.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (view.compareKeys(view.keyAt(mid), key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Index of the first item whose key sorts at or after `key`: O(log n). */
export function indexAtOrAfter<T, K>(view: SortedView<T, K>, key: K): number {
  let low = 0;
  let high = view.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (view.compareKeys(view.keyAt(mid), key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** One page of `view` after `query.after`. */
export function keysetPage<T, K>(view: SortedView<T, K>, query: KeysetQuery<T, K>): KeysetPage<T, K> {
  const { after, limit, filter } = query;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`limit must be a positive integer, got ${String(limit)}`);
  }
  const start = after === undefined ? 0 : indexAfter(view, after);
  const items: T[] = [];
  let lastIndex = -1;
  for (let index = start; index < view.length; index++) {
    const item = view.itemAt(index);
    if (filter !== undefined && !filter(item)) continue;
    if (items.length === limit) {
      // One more match exists beyond the page.
      return { items, hasMore: true, nextAfter: view.keyAt(lastIndex) };
    }
    items.push(item);
    lastIndex = index;
  }
  return { items, hasMore: false, nextAfter: null };
}
