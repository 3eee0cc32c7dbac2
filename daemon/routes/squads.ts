/**
 * The squad routes (docs/assets.md, scope squads:read): the list, one squad, its members,
 * its summary and its members' bases, vehicles and containers. Declarations; each handler is one
 * read or one keyset page through the read cache.
 *
 * max-age 10 s, the short end of the spec's 10 to 15: member rows and summaries carry presence
 * and balances, which move faster than the assets do.
 */
import * as z from 'zod';
import { SquadMember, SquadRow, SquadSummary } from '../../protocol/ops/assets.ts';
import { Base, Container, Vehicle } from '../../protocol/ops/schemas.ts';
import {
  SQUAD_READ_TAGS,
  countParam,
  daysParam,
  decimalParam,
  idParams,
  rangeRules,
} from './asset-params.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import {
  cursorParam,
  filterRules,
  limitParam,
  platformIdParam,
  searchParam,
  socialIdParam,
} from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const TAGS = SQUAD_READ_TAGS;
const CACHE = { kind: 'private', maxAgeSec: 10 } as const;
const ERRORS = ['server_unavailable', 'gateway_timeout'] as const;
const common = { tag: 'Squads', scope: 'squads:read', cache: CACHE, errors: ERRORS } as const;

const STRUCTURED = [
  'leader_platform_id',
  'leader_social_id',
  'min_members',
  'max_members',
  'min_score',
  'active_within_days',
];

const ListQuery = lazySchema(() =>
  z
    .object({
      leader_platform_id: platformIdParam.optional(),
      leader_social_id: socialIdParam.optional(),
      min_members: countParam.optional(),
      max_members: countParam.optional(),
      min_score: decimalParam.optional(),
      active_within_days: daysParam.optional().describe('Last member login within N days'),
      search: searchParam.optional().describe('Case-insensitive part of the squad name'),
      limit: limitParam(10, 100),
      cursor: cursorParam,
    })
    .strict()
    .superRefine(filterRules({ structured: STRUCTURED, pairs: [['leader_platform_id', 'leader_social_id']] }))
    .superRefine(rangeRules([['min_members', 'max_members']])),
);

/** `limit` 1 to 100 on the squad asset lists (docs/assets.md). */
const AssetQuery = lazySchema(() => z.object({ limit: limitParam(1, 100), cursor: cursorParam }).strict());

export const listSquads = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/squads',
  operationId: 'listSquads',
  summary: 'Squads, by id, with filters',
  query: ListQuery,
  response: { status: 200, schema: () => collection(SquadRow(), true, 'SquadPage') },
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('squads.list', filters, { cursor, limit, tags: TAGS }),
});

export const getSquad = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/squads/{id}',
  operationId: 'getSquad',
  summary: 'One squad',
  params: idParams,
  response: { status: 200, schema: SquadRow },
  handler: ({ params, read }) => read('squads.get', { id: params.id }, TAGS),
});

export const listSquadMembers = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/squads/{id}/members',
  operationId: 'listSquadMembers',
  summary: 'Every member of a squad (not paginated: bounded by the member limit)',
  params: idParams,
  response: { status: 200, schema: () => z.object({ data: z.array(SquadMember()) }) },
  handler: ({ params, read }) => read('squads.members', { id: params.id }, TAGS),
});

export const getSquadSummary = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/squads/{id}/summary',
  operationId: 'getSquadSummary',
  summary: 'Totals over a squad’s members and their assets',
  params: idParams,
  response: { status: 200, schema: SquadSummary },
  handler: ({ params, read }) => read('squads.summary', { id: params.id }, TAGS),
});

export const listSquadBases = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/squads/{id}/bases',
  operationId: 'listSquadBases',
  summary: 'Bases owned by a squad’s members, by flag id',
  params: idParams,
  query: AssetQuery,
  response: { status: 200, schema: () => collection(Base(), false, 'SquadBasePage') },
  handler: ({ params, query: { cursor, limit }, page }) =>
    page('squads.bases', { id: params.id }, { cursor, limit, tags: TAGS }),
});

export const listSquadVehicles = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/squads/{id}/vehicles',
  operationId: 'listSquadVehicles',
  summary: 'Vehicles owned by a squad’s members, by entity id',
  params: idParams,
  query: AssetQuery,
  response: { status: 200, schema: () => collection(Vehicle(), false, 'SquadVehiclePage') },
  handler: ({ params, query: { cursor, limit }, page }) =>
    page('squads.vehicles', { id: params.id }, { cursor, limit, tags: TAGS }),
});

export const listSquadContainers = defineRoute({
  ...common,
  method: 'GET',
  path: '/v1/squads/{id}/containers',
  operationId: 'listSquadContainers',
  summary: 'Containers owned by a squad’s members, by entity id',
  params: idParams,
  query: AssetQuery,
  response: { status: 200, schema: () => collection(Container(), false, 'SquadContainerPage') },
  handler: ({ params, query: { cursor, limit }, page }) =>
    page('squads.containers', { id: params.id }, { cursor, limit, tags: TAGS }),
});

export const SQUAD_ROUTES = [
  listSquads,
  getSquad,
  listSquadMembers,
  getSquadSummary,
  listSquadBases,
  listSquadVehicles,
  listSquadContainers,
];
