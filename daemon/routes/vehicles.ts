/**
 * The vehicle routes (docs/assets.md, scope vehicles:read): the list with its filters, one
 * vehicle, its inventory, and the count per display name. Declarations; each handler is one read
 * or one keyset page through the read cache. `{id}` is the entity id, a decimal string that can
 * pass 2^53-1: it reaches the mod exactly as written.
 *
 * max-age 10 s, the short end of the spec's 10 to 15 (vehicles move, lose health and change
 * locks while driven); 15 s on the type counts, an aggregate over every vehicle.
 */
import * as z from 'zod';
import { Inventory, TypeCounts } from '../../protocol/ops/assets.ts';
import { Vehicle } from '../../protocol/ops/schemas.ts';
import { ASSET_READ_TAGS, boundedText, entityIdParams, ownerQuery } from './asset-params.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import { booleanParam, cursorParam, filterRules, limitParam, searchParam } from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const TAGS = ASSET_READ_TAGS;
const common = {
  tag: 'Vehicles',
  scope: 'vehicles:read',
  cache: { kind: 'private', maxAgeSec: 10 },
  errors: ['server_unavailable', 'gateway_timeout'],
} as const;

const STRUCTURED = [
  'owner_platform_id',
  'owner_social_id',
  'owner_name',
  'alias',
  'is_locked',
  'is_functional',
];

const ListQuery = lazySchema(() =>
  z
    .object({
      ...ownerQuery,
      alias: boundedText.optional().describe('Exact display name, as keyed in /v1/vehicles/types'),
      is_locked: booleanParam.optional(),
      is_functional: booleanParam.optional(),
      search: searchParam.optional().describe('Case-insensitive part of the display, class or owner name'),
      limit: limitParam(10, 100),
      cursor: cursorParam,
    })
    .strict()
    .superRefine(filterRules({ structured: STRUCTURED, pairs: [['owner_platform_id', 'owner_social_id']] })),
);

export const listVehicles = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/vehicles',
  operationId: 'listVehicles',
  summary: 'Vehicles, by entity id, with filters',
  query: ListQuery,
  response: { status: 200, schema: () => collection(Vehicle(), true, 'VehiclePage') },
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('vehicles.list', filters, { cursor, limit, tags: TAGS }),
});

export const getVehicleTypes = defineRoute({
  ...common,
  cache: { kind: 'private', maxAgeSec: 15 },
  method: 'GET',
  path: '/v1/vehicles/types',
  operationId: 'getVehicleTypes',
  summary: 'Vehicle count per display name',
  response: { status: 200, schema: TypeCounts },
  handler: ({ read }) => read('vehicles.types', {}, TAGS),
});

export const getVehicle = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/vehicles/{id}',
  operationId: 'getVehicle',
  summary: 'One vehicle, by entity id',
  params: entityIdParams,
  response: { status: 200, schema: Vehicle },
  handler: ({ params, read }) => read('vehicles.get', { entity_id: params.id }, TAGS),
});

export const getVehicleInventory = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/vehicles/{id}/inventory',
  operationId: 'getVehicleInventory',
  summary: 'A vehicle’s inventory, nested containers included',
  params: entityIdParams,
  response: { status: 200, schema: Inventory },
  handler: ({ params, read }) => read('vehicles.inventory', { entity_id: params.id }, TAGS),
});

export const VEHICLE_ROUTES = [listVehicles, getVehicleTypes, getVehicle, getVehicleInventory];
