/**
 * The container routes (docs/assets.md, scope containers:read): the list with its
 * filters, one container, its inventory, and the count per display name. Declarations; each
 * handler is one read or one keyset page through the read cache. `{id}` is the entity id, a
 * decimal string that can pass 2^53-1: it reaches the mod exactly as written.
 *
 * max-age 15 s, the long end of the spec's 10 to 15: containers stay where they are built or
 * buried and change only when someone opens them.
 */
import * as z from 'zod';
import { Inventory, TypeCounts } from '../../protocol/ops/assets.ts';
import { Container } from '../../protocol/ops/schemas.ts';
import { ASSET_READ_TAGS, entityIdParams, ownerQuery } from './asset-params.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import {
  asParam,
  booleanParam,
  cursorParam,
  digitsParam,
  filterRules,
  integerParam,
  limitParam,
  searchParam,
} from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const TAGS = ASSET_READ_TAGS;
const common = {
  tag: 'Containers',
  scope: 'containers:read',
  cache: { kind: 'private', maxAgeSec: 15 },
  errors: ['server_unavailable', 'gateway_timeout'],
} as const;

const STRUCTURED = [
  'owner_platform_id',
  'owner_social_id',
  'owner_name',
  'base_id',
  'is_locked',
  'is_buried',
];

const ListQuery = lazySchema(() =>
  z
    .object({
      ...ownerQuery,
      base_id: asParam(digitsParam.clone(), integerParam(0))
        .optional()
        .describe('The base the container stands in (digits)'),
      is_locked: booleanParam.optional(),
      is_buried: booleanParam.optional(),
      search: searchParam
        .optional()
        .describe('Case-insensitive part of the display, custom, base or owner name'),
      limit: limitParam(10, 100),
      cursor: cursorParam,
    })
    .strict()
    .superRefine(filterRules({ structured: STRUCTURED, pairs: [['owner_platform_id', 'owner_social_id']] })),
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

export const getContainerTypes = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/containers/types',
  operationId: 'getContainerTypes',
  summary: 'Container count per display name',
  response: { status: 200, schema: TypeCounts },
  handler: ({ read }) => read('containers.types', {}, TAGS),
});

export const getContainer = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/containers/{id}',
  operationId: 'getContainer',
  summary: 'One container, by entity id',
  params: entityIdParams,
  response: { status: 200, schema: Container },
  handler: ({ params, read }) => read('containers.get', { entity_id: params.id }, TAGS),
});

export const getContainerInventory = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/containers/{id}/inventory',
  operationId: 'getContainerInventory',
  summary: 'A container’s inventory, nested containers included',
  params: entityIdParams,
  response: { status: 200, schema: Inventory },
  handler: ({ params, read }) => read('containers.inventory', { entity_id: params.id }, TAGS),
});

export const CONTAINER_ROUTES = [listContainers, getContainerTypes, getContainer, getContainerInventory];
