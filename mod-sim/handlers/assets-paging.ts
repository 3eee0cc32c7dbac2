/**
 * What the asset handlers share: keyset pages over the world's sorted lists (PROTOCOL §6.5),
 * totals, owner resolution and filter composition. The cost of each piece is stated where it is
 * paid; docs/assets.md adds them up per filter.
 */
import { OpError } from '../../protocol/ops/index.ts';
import { IndexedList, keysetPage, type OwnedAssets, type World } from '../world/index.ts';

/** How a list's key travels in `after` / `next`: always as text, parsed back exactly. */
export interface KeyCodec<K> {
  /** The key, or undefined when the text is not one this list could have issued. */
  parse(text: string): K | undefined;
  format(key: K): string;
}

/** Squad and flag ids: safe integers, so at most 15 digits parse exactly. */
export const NUMBER_KEY: KeyCodec<number> = {
  parse: (text) => (/^(0|[1-9][0-9]{0,14})$/.test(text) ? Number(text) : undefined),
  format: (key) => String(key),
};

/** Entity ids stay decimal strings: never a JS number, which would round ids above 2^53. */
export const ENTITY_KEY: KeyCodec<string> = {
  parse: (text) => (/^[1-9][0-9]{0,19}$/.test(text) ? text : undefined),
  format: (key) => key,
};

export interface PageArgs {
  after: string | null;
  limit: number;
}

export type Filter<T> = (item: T) => boolean;

/**
 * One page of `list` after `args.after`: O(log n) to find the start, then O(items examined),
 * which is `limit + 1` without a filter.
 */
export function pageOf<T, K, R>(
  list: IndexedList<T, K>,
  args: PageArgs,
  key: KeyCodec<K>,
  row: (item: T) => R,
  filter?: Filter<T>,
): { data: R[]; next: string | null } {
  let after: K | undefined;
  if (args.after !== null) {
    after = key.parse(args.after);
    if (after === undefined) throw new OpError('invalid', 'after is not a position this list issued');
  }
  const page = keysetPage(list, { after, limit: args.limit, filter });
  return { data: page.items.map(row), next: page.nextAfter === null ? null : key.format(page.nextAfter) };
}

/** Matches across all pages: O(1) without a filter, one pass over `list` with one. */
export function countOf<T, K>(list: IndexedList<T, K>, filter?: Filter<T>): number {
  if (filter === undefined) return list.length;
  let total = 0;
  for (const item of list.values()) if (filter(item)) total += 1;
  return total;
}

/** Every given predicate; undefined when none is given (so pages and totals take the fast path). */
export function allOf<T>(...filters: Array<Filter<T> | false | undefined>): Filter<T> | undefined {
  const given = filters.filter((f): f is Filter<T> => typeof f === 'function');
  if (given.length === 0) return undefined;
  if (given.length === 1) return given[0];
  return (item) => given.every((f) => f(item));
}

/** Lower-cased field values: names repeat across thousands of assets, so a search scan reuses them. */
const lowered = new Map<string, string>();

function lower(text: string): string {
  let value = lowered.get(text);
  if (value === undefined) {
    if (lowered.size >= 50_000) lowered.clear();
    value = text.toLowerCase();
    lowered.set(text, value);
  }
  return value;
}

/** A case-insensitive substring test over the fields `text` picks. */
export function searchFilter<T>(
  search: string | undefined,
  text: (item: T) => ReadonlyArray<string | null>,
): Filter<T> | undefined {
  if (search === undefined) return undefined;
  const needle = search.toLowerCase();
  return (item) => text(item).some((field) => field !== null && lower(field).includes(needle));
}

/** `[min, max]` bounds on a number; either end optional. */
export function rangeFilter<T>(
  value: (item: T) => number,
  min: number | undefined,
  max: number | undefined,
): Filter<T> | undefined {
  if (min === undefined && max === undefined) return undefined;
  return (item) => {
    const v = value(item);
    return (min === undefined || v >= min) && (max === undefined || v <= max);
  };
}

export function equalsFilter<T, V>(value: (item: T) => V, wanted: V | undefined): Filter<T> | undefined {
  return wanted === undefined ? undefined : (item) => value(item) === wanted;
}

export interface OwnerArgs {
  owner_platform_id?: string | undefined;
  owner_social_id?: string | undefined;
  owner_name?: string | undefined;
}

/**
 * Profile ids of the owners every given owner filter names; undefined when none is given. An id
 * that resolves to nobody gives an empty list (an empty page, never not_found). O(1) for the
 * platform and social ids (hash indexes), O(1) after a one-time O(n) build for the exact name.
 */
export function ownerProfiles(world: World, args: OwnerArgs): number[] | undefined {
  const sets: Array<readonly number[]> = [];
  const one = (player: { user_profile_id: number } | undefined) => (player ? [player.user_profile_id] : []);
  if (args.owner_platform_id !== undefined)
    sets.push(one(world.players.byPlatformId(args.owner_platform_id)));
  if (args.owner_social_id !== undefined) sets.push(one(world.players.bySocialId(args.owner_social_id)));
  if (args.owner_name !== undefined) sets.push(world.assets.ownersNamed(args.owner_name));
  const [first, ...rest] = sets;
  if (first === undefined) return undefined;
  return first.filter((id) => rest.every((set) => set.includes(id)));
}

/**
 * The assets of some owners as a list in the world list's order: O(owners × log n) to find them
 * (the owner index is a binary search) and O(k log k) to sort the k found.
 */
export function ownedList<T, K>(
  world: World,
  profiles: readonly number[],
  pick: (owned: OwnedAssets) => T[],
  like: IndexedList<T, K>,
): IndexedList<T, K> {
  const items = profiles.flatMap((id) => pick(world.assets.ownedBy(id)));
  return new IndexedList(items, like.keyOf, like.compareKeys, { hashIndex: false });
}

/** Not found, as the daemon maps it to 404. */
export function notFound(what: string, id: string): OpError {
  return new OpError('not_found', `No ${what} with id ${id}.`);
}
