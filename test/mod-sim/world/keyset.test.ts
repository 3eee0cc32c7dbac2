import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SortedView } from '../../../mod-sim/world/index.ts';
import {
  IndexedList,
  compareDecimalStrings,
  compareNumbers,
  descending,
  keysetPage,
} from '../../../mod-sim/world/index.ts';

interface Row {
  id: number;
  tag: string;
}

function list(ids: readonly number[]): IndexedList<Row, number> {
  return new IndexedList(
    ids.map((id) => ({ id, tag: id % 3 === 0 ? 'fizz' : 'plain' })),
    (row) => row.id,
    compareNumbers,
  );
}

/** Follows next keys from the first page to the last. */
function pageAll<T, K>(view: SortedView<T, K>, limit: number, filter?: (item: T) => boolean): T[][] {
  const pages: T[][] = [];
  let after: K | undefined;
  for (;;) {
    const page = keysetPage(view, { after, limit, filter });
    pages.push(page.items);
    if (!page.hasMore) {
      expect(page.nextAfter).toBeNull();
      return pages;
    }
    expect(page.items).toHaveLength(limit);
    after = page.nextAfter ?? undefined;
  }
}

const uniqueIds = fc.uniqueArray(fc.integer({ min: -1_000, max: 1_000 }), { maxLength: 80 });

describe('keysetPage', () => {
  it('visits every item once, in order, for any list and page size', () => {
    fc.assert(
      fc.property(uniqueIds, fc.integer({ min: 1, max: 12 }), (ids, limit) => {
        const view = list(ids);
        const seen = pageAll(view, limit).flat();
        expect(seen.map((r) => r.id)).toEqual([...ids].sort((a, b) => a - b));
      }),
    );
  });

  it('visits exactly the matching items when filtered, each page full but the last', () => {
    fc.assert(
      fc.property(uniqueIds, fc.integer({ min: 1, max: 7 }), (ids, limit) => {
        const view = list(ids);
        const fizz = (row: Row) => row.tag === 'fizz';
        const pages = pageAll(view, limit, fizz);
        const expected = view.values().filter(fizz);
        expect(pages.flat()).toEqual(expected);
        expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / limit)));
      }),
    );
  });

  it('reports no more pages when the list ends exactly on a page boundary', () => {
    const view = list([1, 2, 3, 4, 5, 6]);
    const first = keysetPage(view, { limit: 3 });
    expect(first).toEqual({ items: view.values().slice(0, 3), hasMore: true, nextAfter: 3 });
    const second = keysetPage(view, { limit: 3, after: 3 });
    expect(second).toEqual({ items: view.values().slice(3), hasMore: false, nextAfter: null });
  });

  it('starts after a key that is no longer in the list', () => {
    const view = list([10, 20, 30, 40]);
    expect(keysetPage(view, { limit: 2, after: 25 }).items.map((r) => r.id)).toEqual([30, 40]);
    expect(keysetPage(view, { limit: 2, after: 5 }).items.map((r) => r.id)).toEqual([10, 20]);
    expect(keysetPage(view, { limit: 2, after: 99 })).toEqual({ items: [], hasMore: false, nextAfter: null });
  });

  it('keeps working while items are inserted and removed between pages', () => {
    const view = list([1, 2, 3, 4, 5]);
    const first = keysetPage(view, { limit: 2 });
    view.remove(3);
    view.insert({ id: 0, tag: 'plain' });
    view.insert({ id: 6, tag: 'plain' });
    const rest = keysetPage(view, { limit: 10, after: first.nextAfter ?? undefined });
    expect(rest.items.map((r) => r.id)).toEqual([4, 5, 6]);
  });

  it('pages newest first with a descending comparator', () => {
    const view = new IndexedList([3, 1, 2, 5, 4], (n) => n, descending(compareNumbers));
    expect(pageAll(view, 2)).toEqual([[5, 4], [3, 2], [1]]);
  });

  it('orders decimal-string keys above 2^53 by value', () => {
    const ids = ['9007199254740993', '9007199254740992', '18446744073709551615', '42', '100000000000000000'];
    const view = new IndexedList(ids, (id) => id, compareDecimalStrings);
    expect(view.values()).toEqual([
      '42',
      '9007199254740992',
      '9007199254740993',
      '100000000000000000',
      '18446744073709551615',
    ]);
    expect(keysetPage(view, { limit: 1, after: '9007199254740992' }).items).toEqual(['9007199254740993']);
  });

  it('costs O(log n + page) without a filter, wherever the page starts', () => {
    const size = 1_000_000;
    let keyReads = 0;
    let itemReads = 0;
    const view: SortedView<number, number> = {
      length: size,
      itemAt: (index) => (itemReads++, index * 2),
      keyAt: (index) => (keyReads++, index * 2),
      compareKeys: compareNumbers,
    };
    const page = keysetPage(view, { limit: 50, after: 1_999_000 });
    expect(page.items[0]).toBe(1_999_002);
    expect(keyReads).toBeLessThanOrEqual(Math.ceil(Math.log2(size)) + 2);
    expect(itemReads).toBe(51);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects the page size %s', (limit) => {
    expect(() => keysetPage(list([1]), { limit })).toThrow(RangeError);
  });
});

describe('IndexedList', () => {
  it('finds items by key with and without a hash index', () => {
    for (const hashIndex of [true, false]) {
      const view = new IndexedList([5, 1, 3], (n) => n, compareNumbers, { hashIndex });
      expect(view.values()).toEqual([1, 3, 5]);
      expect(view.get(3)).toBe(3);
      expect(view.get(4)).toBeUndefined();
      view.insert(4);
      expect(view.has(4)).toBe(true);
      expect(view.remove(1)).toBe(true);
      expect(view.remove(1)).toBe(false);
      expect(view.values()).toEqual([3, 4, 5]);
    }
  });

  it('rejects duplicate keys at construction and on insert', () => {
    expect(() => new IndexedList([1, 2, 1], (n) => n, compareNumbers)).toThrow(/duplicate key 1/);
    const view = new IndexedList([1], (n) => n, compareNumbers);
    expect(() => view.insert(1)).toThrow(/duplicate key/);
  });

  it('accepts input already sorted either way without reordering mistakes', () => {
    expect(new IndexedList([1, 2, 3], (n) => n, compareNumbers).values()).toEqual([1, 2, 3]);
    expect(new IndexedList([3, 2, 1], (n) => n, compareNumbers).values()).toEqual([1, 2, 3]);
    expect(new IndexedList([1, 2, 3], (n) => n, descending(compareNumbers)).values()).toEqual([3, 2, 1]);
  });
});
