/**
 * The container routes (docs/assets.md, scope containers:read): the list with its filters, and
 * through entity-routes.ts (which vehicles share) one container, its inventory, and the count per
 * display name. Declarations; each handler is one read or one keyset page through the read cache.
 *
 * max-age 15 s, the long end of the spec's 10 to 15: containers stay where they are built or
 * buried and change only when someone opens them.
 */
import { Container } from '../../protocol/ops/schemas.ts';
import { ASSET_READ_TAGS, ownedListQuery } from './asset-params.ts';
import { entityReadRoutes } from './entity-routes.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import { asParam, booleanParam, digitsParam, integerParam } from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const TAGS = ASSET_READ_TAGS;
const common = {
  tag: 'Containers',
  scope: 'containers:read',
  cache: { kind: 'private', maxAgeSec: 15 },
  errors: ['server_unavailable', 'gateway_timeout'],
} as const;

const ListQuery = lazySchema(() =>
  ownedListQuery(
    {
      base_id: asParam(digitsParam.clone(), integerParam(0))
        .optional()
        .describe('The base the container stands in (digits)'),
      is_locked: booleanParam.optional(),
      is_buried: booleanParam.optional(),
    },
    'Case-insensitive part of the display, custom, base or owner name',
  ),
);

export const listContainers = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/containers',
  operationId: 'listContainers',
  summary: 'Containers, by entity id, with filters',
  query: ListQuery,
  response: { status: 200, schema: () => collection(Container(), true, 'ContainerPage') },
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('containers.list', filters, { cursor, limit, tags: TAGS }),
});

export const CONTAINER_ROUTES = [
  listContainers,
  ...entityReadRoutes({
    plural: 'containers',
    singular: 'Container',
    schema: Container,
    common,
    typesMaxAgeSec: 15,
  }),
];
