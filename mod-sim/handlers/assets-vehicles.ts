/**
 * Handlers for the vehicle ops (protocol/ops/assets.ts): the list with its filters, one vehicle,
 * its inventory and the count of vehicles per display name. Entity ids stay decimal strings.
 */
import type { OpHandlers } from '../../protocol/ops/index.ts';
import { countItems, type Vehicle, type World } from '../world/index.ts';
import {
  ENTITY_KEY,
  allOf,
  countOf,
  equalsFilter,
  notFound,
  ownedList,
  ownerProfiles,
  pageOf,
  searchFilter,
} from './assets-paging.ts';

export type VehicleHandlers = Pick<
  OpHandlers,
  'vehicles.list' | 'vehicles.get' | 'vehicles.inventory' | 'vehicles.types'
>;

const same = (vehicle: Vehicle): Vehicle => vehicle;

export function vehicleHandlers(world: World): VehicleHandlers {
  const vehicles = world.assets.vehicles;
  const byId = (entityId: string): Vehicle => {
    const vehicle = vehicles.get(entityId);
    if (vehicle === undefined) throw notFound('vehicle', entityId);
    return vehicle;
  };
  return {
    // Sorted by entity id as a decimal value. An owner filter narrows to the owners' vehicles
    // first (index); alias, the flags and search are tests on each vehicle read.
    'vehicles.list': (args) => {
      const owners = ownerProfiles(world, args);
      const list = owners === undefined ? vehicles : ownedList(world, owners, (o) => o.vehicles, vehicles);
      const filter = allOf<Vehicle>(
        equalsFilter((v) => v.display_name, args.alias),
        equalsFilter((v) => v.is_locked, args.is_locked),
        equalsFilter((v) => v.is_functional, args.is_functional),
        searchFilter(args.search, (v) => [v.display_name, v.class_name, v.owner.name]),
      );
      return { ...pageOf(list, args, ENTITY_KEY, same, filter), total: countOf(list, filter) };
    },
    'vehicles.get': ({ entity_id: entityId }) => byId(entityId),
    'vehicles.inventory': ({ entity_id: entityId }) => {
      const items = world.assets.vehicleInventory(byId(entityId));
      return { items, total: countItems(items) };
    },
    'vehicles.types': () => ({ types: world.assets.vehicleTypes() }),
  };
}
