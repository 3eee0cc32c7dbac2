/**
 * Handlers for the squad ops (protocol/ops/assets.ts): the list with its filters, one squad, its
 * members, its summary and its members' bases, vehicles and containers as keyset pages.
 */
import type { OpHandlers } from '../../protocol/ops/index.ts';
import {
  IndexedList,
  squadAssets,
  squadMembers,
  squadRow,
  squadSummary,
  type Squad,
  type World,
} from '../world/index.ts';
import { DAY, parseSqlDateTime } from '../world/time.ts';
import {
  ENTITY_KEY,
  NUMBER_KEY,
  type Filter,
  allOf,
  countOf,
  notFound,
  pageOf,
  rangeFilter,
  searchFilter,
} from './assets-paging.ts';

export type SquadHandlers = Pick<
  OpHandlers,
  | 'squads.list'
  | 'squads.get'
  | 'squads.members'
  | 'squads.summary'
  | 'squads.bases'
  | 'squads.vehicles'
  | 'squads.containers'
>;

type ListArgs = Parameters<OpHandlers['squads.list']>[0];

/** Epoch ms of a raw server-local stamp `YYYY.MM.DD-HH.MM.SS`; NaN when malformed. */
export function localStampMs(stamp: string): number {
  const sql = `${stamp.slice(0, 10).replaceAll('.', '-')} ${stamp.slice(11).replaceAll('.', ':')}`;
  return stamp[10] === '-' ? parseSqlDateTime(sql) : Number.NaN;
}

/** The squad with this id (decimal text); ids past 15 digits are not squad ids. */
function squadById(world: World, id: string): Squad {
  const key = NUMBER_KEY.parse(id);
  const squad = key === undefined ? undefined : world.squads.get(key);
  if (squad === undefined) throw notFound('squad', id);
  return squad;
}

/**
 * The squads a leader filter allows: the one the player leads, or none (an id that resolves to
 * nobody is an empty page). O(1): hash lookups. Undefined when no leader filter is given.
 */
function ledBy(world: World, args: ListArgs): IndexedList<Squad, number> | undefined {
  const { leader_platform_id: platformId, leader_social_id: socialId } = args;
  if (platformId === undefined && socialId === undefined) return undefined;
  const player =
    platformId !== undefined
      ? world.players.byPlatformId(platformId)
      : world.players.bySocialId(socialId ?? '');
  const squad = player?.squad ? world.squads.get(player.squad.id) : undefined;
  const leads = squad !== undefined && squadRow(squad).leader.platform_id === player?.platform_id;
  return new IndexedList(leads ? [squad] : [], world.squads.keyOf, world.squads.compareKeys);
}

/** Last member login within `days` of the game clock (the squad's own `last_active`). */
function activeWithin(world: World, days: number | undefined): Filter<Squad> | undefined {
  if (days === undefined) return undefined;
  const since = world.clock() - days * DAY;
  return (squad) => localStampMs(squad.last_active) >= since;
}

export function squadHandlers(world: World): SquadHandlers {
  const assets = (id: string) => squadAssets(world, squadById(world, id));
  return {
    'squads.list': (args) => {
      const list = ledBy(world, args) ?? world.squads;
      const filter = allOf<Squad>(
        rangeFilter((s) => s.members.length, args.min_members, args.max_members),
        rangeFilter((s) => s.score, args.min_score, undefined),
        activeWithin(world, args.active_within_days),
        searchFilter(args.search, (s) => [s.name]),
      );
      return { ...pageOf(list, args, NUMBER_KEY, squadRow, filter), total: countOf(list, filter) };
    },
    'squads.get': ({ id }) => squadRow(squadById(world, id)),
    'squads.members': ({ id }) => ({ data: squadMembers(world, squadById(world, id)) }),
    'squads.summary': ({ id }) => squadSummary(world, squadById(world, id)),
    // Members' assets: O(m log n + k log k) to gather and sort a squad's k assets (m ≤ 16).
    'squads.bases': ({ id, ...page }) => pageOf(assets(id).bases, page, NUMBER_KEY, same),
    'squads.vehicles': ({ id, ...page }) => pageOf(assets(id).vehicles, page, ENTITY_KEY, same),
    'squads.containers': ({ id, ...page }) => pageOf(assets(id).containers, page, ENTITY_KEY, same),
  };
}

const same = <T>(item: T): T => item;
