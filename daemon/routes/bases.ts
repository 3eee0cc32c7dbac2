/**
 * The base routes (docs/assets.md, scope bases:read): the list with its filters and one base
 * by flag id. Declarations; each handler is one read or one keyset page through the read cache.
 * max-age 15 s, as the spec fixes it for bases.
 */
import { Base } from '../../protocol/ops/schemas.ts';
import {
  ASSET_READ_TAGS,
  countParam,
  healthParam,
  idParams,
  ownedListQuery,
  rangeRules,
} from './asset-params.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const TAGS = ASSET_READ_TAGS;
const common = {
  tag: 'Bases',
  scope: 'bases:read',
  cache: { kind: 'private', maxAgeSec: 15 },
  errors: ['server_unavailable', 'gateway_timeout'],
} as const;

const ListQuery = lazySchema(() =>
  ownedListQuery(
    {
      min_elements: countParam.optional(),
      max_elements: countParam.optional(),
      min_health: healthParam.optional(),
      max_health: healthParam.optional(),
    },
    'Case-insensitive part of the owner’s character name',
  ).superRefine(
    rangeRules([
      ['min_elements', 'max_elements'],
      ['min_health', 'max_health'],
    ]),
  ),
);

export const listBases = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/bases',
  operationId: 'listBases',
  summary: 'Bases, by flag id, with filters',
  query: ListQuery,
  response: { status: 200, schema: () => collection(Base(), true, 'BasePage') },
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('bases.list', filters, { cursor, limit, tags: TAGS }),
});

export const getBase = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/bases/{id}',
  operationId: 'getBase',
  summary: 'One base, by flag id',
  params: idParams,
  response: { status: 200, schema: Base },
  handler: ({ params, read }) => read('bases.get', { flag_id: params.id }, TAGS),
});

export const BASE_ROUTES = [listBases, getBase];
