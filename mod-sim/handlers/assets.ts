/**
 * Handlers for every asset op (protocol/ops/assets.ts): squads, bases, vehicles, containers.
 * Each list is a keyset page over one of the world's sorted lists (PROTOCOL §6.5); the cost of
 * each filter is in docs/assets.md.
 */
import type { World } from '../world/index.ts';
import { type BaseHandlers, baseHandlers } from './assets-bases.ts';
import { type ContainerHandlers, containerHandlers } from './assets-containers.ts';
import { type SquadHandlers, squadHandlers } from './assets-squads.ts';
import { type VehicleHandlers, vehicleHandlers } from './assets-vehicles.ts';

export type AssetHandlers = SquadHandlers & BaseHandlers & VehicleHandlers & ContainerHandlers;

export function assetHandlers(world: World): AssetHandlers {
  return {
    ...squadHandlers(world),
    ...baseHandlers(world),
    ...vehicleHandlers(world),
    ...containerHandlers(world),
  };
}
