/**
 * Handlers for the container ops (protocol/ops/assets.ts): the list with its filters, one
 * container, its inventory and the count per display name. Entity ids stay decimal strings.
 */
import type { OpHandlers } from '../../protocol/ops/index.ts';
import { countItems, type Container, type World } from '../world/index.ts';
import {
  ENTITY_KEY,
  NUMBER_KEY,
  allOf,
  countOf,
  equalsFilter,
  notFound,
  ownedList,
  ownerProfiles,
  pageOf,
  searchFilter,
} from './assets-paging.ts';

export type ContainerHandlers = Pick<
  OpHandlers,
  'containers.list' | 'containers.get' | 'containers.inventory' | 'containers.types'
>;

type ListArgs = Parameters<OpHandlers['containers.list']>[0];

const same = (container: Container): Container => container;

/**
 * Owners to narrow to: those of the owner filters and, with `base_id`, the base's owner (a
 * container in a base is its owner's, as the game places them). `base_id` is a value: leading
 * zeros are ignored. An unknown base leaves nobody: an empty page.
 */
function owners(
  world: World,
  args: ListArgs,
): { profiles: number[] | undefined; baseId: number | undefined } {
  const profiles = ownerProfiles(world, args);
  if (args.base_id === undefined) return { profiles, baseId: undefined };
  const baseId = NUMBER_KEY.parse(args.base_id.replace(/^0+(?=[0-9])/, ''));
  const base = baseId === undefined ? undefined : world.assets.baseByBaseId(baseId);
  const owner = base === undefined ? [] : [base.owner.profile_id];
  return { profiles: (profiles ?? owner).filter((id) => owner.includes(id)), baseId };
}

export function containerHandlers(world: World): ContainerHandlers {
  const containers = world.assets.containers;
  const byId = (entityId: string): Container => {
    const container = containers.get(entityId);
    if (container === undefined) throw notFound('container', entityId);
    return container;
  };
  return {
    // Sorted by entity id as a decimal value. Owner and base filters narrow to the owners'
    // containers first (index); the flags and search are tests on each container read.
    'containers.list': (args) => {
      const { profiles, baseId } = owners(world, args);
      const list =
        profiles === undefined ? containers : ownedList(world, profiles, (o) => o.containers, containers);
      const filter = allOf<Container>(
        equalsFilter((c) => c.base_id, baseId),
        equalsFilter((c) => c.is_locked, args.is_locked),
        equalsFilter((c) => c.is_buried, args.is_buried),
        searchFilter(args.search, (c) => [c.display_name, c.custom_name, c.base_name, c.owner.name]),
      );
      return { ...pageOf(list, args, ENTITY_KEY, same, filter), total: countOf(list, filter) };
    },
    'containers.get': ({ entity_id: entityId }) => byId(entityId),
    'containers.inventory': ({ entity_id: entityId }) => {
      const items = world.assets.containerInventory(byId(entityId));
      return { items, total: countItems(items) };
    },
    'containers.types': () => ({ types: world.assets.containerTypes() }),
  };
}
