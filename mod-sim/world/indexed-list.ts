/**
 * The world's collection type: items kept sorted by a unique key (for keyset pages), with an
 * optional Map from key to item for O(1) lookups; without it `get` is a binary search. Inserting
 * or removing one item costs O(n) for the array splice, which a simulator can afford; reads
 * never pay more than O(log n + page).
 */
import type { Compare, SortedView } from './keyset.ts';
import { indexAtOrAfter } from './keyset.ts';

export interface IndexedListOptions {
  /** Keep a Map for O(1) `get` (default true); lists only ever paged can save its memory. */
  hashIndex?: boolean;
}

/**
 * Sorts `items` by key, computing each key once and allocating no object per item; input already
 * in order (or in reverse order, as when a newest-first list is built from a history generated
 * oldest first) is not sorted again. Throws on a duplicate key.
 */
function sortByKey<T, K>(items: T[], keys: K[], compare: Compare<K>): { items: T[]; keys: K[] } {
  const ascending = (list: K[]): boolean =>
    list.every((key, i) => i === 0 || compare(list[i - 1] as K, key) < 0);
  let sorted = { items, keys };
  if (!ascending(keys)) {
    const reversed = { items: [...items].reverse(), keys: [...keys].reverse() };
    if (ascending(reversed.keys)) sorted = reversed;
    else {
      const order = Array.from(keys, (_, i) => i).sort((a, b) => compare(keys[a] as K, keys[b] as K));
      sorted = { items: order.map((i) => items[i] as T), keys: order.map((i) => keys[i] as K) };
    }
  }
  for (let i = 1; i < sorted.keys.length; i++) {
    const key = sorted.keys[i] as K;
    if (compare(sorted.keys[i - 1] as K, key) === 0) throw new Error(`duplicate key ${String(key)}`);
  }
  return sorted;
}

export class IndexedList<T, K> implements SortedView<T, K>, Iterable<T> {
  readonly #items: T[];
  readonly #byKey: Map<K, T> | undefined = undefined;
  readonly keyOf: (item: T) => K;
  readonly compareKeys: Compare<K>;

  constructor(
    items: Iterable<T>,
    keyOf: (item: T) => K,
    compareKeys: Compare<K>,
    options: IndexedListOptions = {},
  ) {
    this.keyOf = keyOf;
    this.compareKeys = compareKeys;
    const list = Array.from(items);
    const sorted = sortByKey(list, list.map(keyOf), compareKeys);
    this.#items = sorted.items;
    if (options.hashIndex !== false) {
      this.#byKey = new Map();
      sorted.keys.forEach((key, i) => this.#byKey?.set(key, sorted.items[i] as T));
    }
  }

  get length(): number {
    return this.#items.length;
  }

  itemAt(index: number): T {
    if (index < 0 || index >= this.#items.length) throw new RangeError(`index ${index} out of range`);
    return this.#items[index] as T;
  }

  keyAt(index: number): K {
    return this.keyOf(this.itemAt(index));
  }

  get(key: K): T | undefined {
    if (this.#byKey !== undefined) return this.#byKey.get(key);
    const index = indexAtOrAfter(this, key);
    return index < this.#items.length && this.compareKeys(this.keyAt(index), key) === 0
      ? this.#items[index]
      : undefined;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** The items in order, read-only (no copy). */
  values(): readonly T[] {
    return this.#items;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.#items[Symbol.iterator]();
  }

  /** Adds an item at its sorted position; a duplicate key is an error. */
  insert(item: T): void {
    const key = this.keyOf(item);
    if (this.has(key)) throw new Error(`duplicate key ${String(key)}`);
    this.#items.splice(indexAtOrAfter(this, key), 0, item);
    this.#byKey?.set(key, item);
  }

  /** Removes the item with `key`; false when there was none. */
  remove(key: K): boolean {
    if (!this.has(key)) return false;
    this.#items.splice(indexAtOrAfter(this, key), 1);
    this.#byKey?.delete(key);
    return true;
  }
}
