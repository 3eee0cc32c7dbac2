/** Handlers for the base ops (protocol/ops/assets.ts): the list with its filters and one base. */
import type { OpHandlers } from '../../protocol/ops/index.ts';
import type { Base, World } from '../world/index.ts';
import {
  NUMBER_KEY,
  allOf,
  countOf,
  notFound,
  ownedList,
  ownerProfiles,
  pageOf,
  rangeFilter,
  searchFilter,
} from './assets-paging.ts';

export type BaseHandlers = Pick<OpHandlers, 'bases.list' | 'bases.get'>;

const same = (base: Base): Base => base;

export function baseHandlers(world: World): BaseHandlers {
  const bases = world.assets.bases;
  return {
    // Sorted by flag id. An owner filter narrows to the owners' bases first (index); the element,
    // health and search filters are tests on each base read.
    'bases.list': (args) => {
      const owners = ownerProfiles(world, args);
      const list = owners === undefined ? bases : ownedList(world, owners, (o) => o.bases, bases);
      const filter = allOf<Base>(
        rangeFilter((b) => b.element_count, args.min_elements, args.max_elements),
        rangeFilter((b) => b.avg_health, args.min_health, args.max_health),
        searchFilter(args.search, (b) => [b.owner.name]),
      );
      return { ...pageOf(list, args, NUMBER_KEY, same, filter), total: countOf(list, filter) };
    },
    'bases.get': ({ flag_id: flagId }) => {
      const key = NUMBER_KEY.parse(flagId);
      const base = key === undefined ? undefined : bases.get(key);
      if (base === undefined) throw notFound('base', flagId);
      return base;
    },
  };
}
