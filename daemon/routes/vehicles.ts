/**
 * The vehicle routes (docs/assets.md, scope vehicles:read): the list with its filters, and
 * through entity-routes.ts (which containers share) one vehicle, its inventory, and the count per
 * display name. Declarations; each handler is one read or one keyset page through the read cache.
 *
 * max-age 10 s, the short end of the spec's 10 to 15 (vehicles move, lose health and change
 * locks while driven); 15 s on the type counts, an aggregate over every vehicle.
 */
import { Vehicle } from '../../protocol/ops/schemas.ts';
import { ASSET_READ_TAGS, boundedText, ownedListQuery } from './asset-params.ts';
import { entityReadRoutes } from './entity-routes.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import { booleanParam } from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const TAGS = ASSET_READ_TAGS;
const common = {
  tag: 'Vehicles',
  scope: 'vehicles:read',
  cache: { kind: 'private', maxAgeSec: 10 },
  errors: ['server_unavailable', 'gateway_timeout'],
} as const;

const ListQuery = lazySchema(() =>
  ownedListQuery(
    {
      alias: boundedText.optional().describe('Exact display name, as keyed in /v1/vehicles/types'),
      is_locked: booleanParam.optional(),
      is_functional: booleanParam.optional(),
    },
    'Case-insensitive part of the display, class or owner name',
  ),
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

export const VEHICLE_ROUTES = [
  listVehicles,
  ...entityReadRoutes({
    plural: 'vehicles',
    singular: 'Vehicle',
    schema: Vehicle,
    common,
    typesMaxAgeSec: 15,
  }),
];
