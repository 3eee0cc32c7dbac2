/**
 * `players.list`: the roster, keyset-paged by platform id (the roster's sort order), with the
 * spec's filters (docs/players.md). The position a page returns as `next` is the platform id
 * of its last row; the next page starts after it by binary search, so it costs the same wherever
 * it starts. Filters given together all apply (the daemon rejects the combinations the spec
 * forbids; the game does not need to).
 *
 * Cost of one page, n players, m connected, k = limit:
 *
 * | filter | page | total |
 * | --- | --- | --- |
 * | none | O(log n + k) | O(1) |
 * | online=true | O(log m + k) over the online index | O(1) |
 * | online=false | O(log n + k / share offline) | O(1) |
 * | platform_id, social_id | O(1) lookup | O(1) |
 * | search | O(log n + rows examined) | O(n) scan (O(m) with online=true) |
 */
import type { Player, RosterRow, SortedView, World } from '../world/index.ts';
import { IndexedList, compareStrings, keysetPage, rosterRow } from '../world/index.ts';
import type { ArgsOf } from './players-common.ts';

type ListArgs = ArgsOf<'players.list'>;
type Filter = (player: Player) => boolean;

interface Plan {
  view: SortedView<Player, string>;
  filter: Filter | undefined;
  total: number;
}

/** Case-insensitive substring of the character or platform name; an empty search matches all. */
export function searchFilter(search: string | undefined): Filter | undefined {
  if (search === undefined || search === '') return undefined;
  const needle = search.toLowerCase();
  return (player) =>
    player.char_name.toLowerCase().includes(needle) || player.platform_name.toLowerCase().includes(needle);
}

function both(a: Filter | undefined, b: Filter | undefined): Filter | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return (player) => a(player) && b(player);
}

/** The one player an id filter pins the list to (none when an id resolves to nobody). */
function pinned(world: World, args: ListArgs): Player[] | undefined {
  if (args.platform_id === undefined && args.social_id === undefined) return undefined;
  const byPlatform =
    args.platform_id === undefined ? undefined : world.players.byPlatformId(args.platform_id);
  const bySocial = args.social_id === undefined ? undefined : world.players.bySocialId(args.social_id);
  const player = byPlatform ?? bySocial;
  if (player === undefined) return [];
  if (args.platform_id !== undefined && byPlatform !== player) return [];
  if (args.social_id !== undefined && bySocial !== player) return [];
  return [player];
}

function counted(view: SortedView<Player, string>, filter: Filter): Plan {
  let total = 0;
  for (let i = 0; i < view.length; i++) if (filter(view.itemAt(i))) total++;
  return { view, filter, total };
}

function plan(world: World, args: ListArgs): Plan {
  const store = world.players;
  const search = searchFilter(args.search);
  const online: Filter | undefined =
    args.online === undefined ? undefined : (player) => player.online === args.online;
  const pins = pinned(world, args);
  if (pins !== undefined) {
    const filter = both(online, search);
    const rows = filter === undefined ? pins : pins.filter(filter);
    return {
      view: new IndexedList(rows, (p) => p.platform_id, compareStrings),
      filter: undefined,
      total: rows.length,
    };
  }
  if (args.online === true) {
    return search === undefined
      ? { view: store.onlineList, filter: undefined, total: store.onlineCount() }
      : counted(store.onlineList, search);
  }
  if (args.online === false) {
    const offline: Filter = (player) => !player.online;
    return search === undefined
      ? { view: store.list, filter: offline, total: store.size - store.onlineCount() }
      : counted(store.list, (player) => offline(player) && search(player));
  }
  return search === undefined
    ? { view: store.list, filter: undefined, total: store.size }
    : counted(store.list, search);
}

/**
 * The result of `players.list`. Typed here rather than as OpResult<'players.list'>, which opPage()
 * leaves as "with or without total"; this page always has one.
 */
export interface RosterPage {
  data: RosterRow[];
  next: string | null;
  total: number;
}

export function listPlayers(world: World, args: ListArgs): RosterPage {
  const { view, filter, total } = plan(world, args);
  const page = keysetPage(view, { after: args.after ?? undefined, limit: args.limit, filter });
  return { data: page.items.map(rosterRow), next: page.nextAfter, total };
}
