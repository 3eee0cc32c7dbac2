/**
 * The three reads vehicles and containers declare alike (docs/assets.md): the count per display
 * name, one entity by its id, and its inventory. Each kind keeps its own list route (its filters
 * differ) and calls this for the rest, so the two kinds cannot drift apart in what these answer.
 * `{id}` is the entity id, a decimal string that can pass 2^53-1: it reaches the mod exactly as
 * written.
 */
import type { z } from 'zod';
import { Inventory, TypeCounts } from '../../protocol/ops/assets.ts';
import type { Declared } from '../../protocol/lazy-schema.ts';
import { type AnyRoute, defineRoute } from '../http/define-route.ts';
import type { Scope } from '../scopes.ts';
import { ASSET_READ_TAGS, entityIdParams } from './asset-params.ts';

/** What one entity kind's reads share: its tag, scope and cache policy, as its list route has them. */
export interface EntityKind {
  /** The kind's path segment and op prefix: `/v1/vehicles/{id}`, `vehicles.get`. */
  plural: 'vehicles' | 'containers';
  /** Its name in operation ids and summaries: `getVehicle`, "One vehicle". */
  singular: 'Vehicle' | 'Container';
  /** The entity's schema, as the op catalogue declares it. */
  schema: Declared<z.ZodType>;
  common: {
    tag: string;
    scope: Scope;
    cache: { kind: 'private'; maxAgeSec: number };
    errors: readonly ['server_unavailable', 'gateway_timeout'];
  };
  /** The type counts' max-age: an aggregate over every entity of the kind. */
  typesMaxAgeSec: number;
}

/** The count per display name, one entity, and its inventory, in the route table's order. */
export function entityReadRoutes(kind: EntityKind): AnyRoute[] {
  const { plural, singular, common } = kind;
  const lower = singular.toLowerCase();
  const types = defineRoute({
    ...common,
    cache: { kind: 'private', maxAgeSec: kind.typesMaxAgeSec },
    method: 'GET',
    path: `/v1/${plural}/types`,
    operationId: `get${singular}Types`,
    summary: `${singular} count per display name`,
    response: { status: 200, schema: TypeCounts },
    handler: ({ read }) => read(`${plural}.types`, {}, ASSET_READ_TAGS),
  });
  const one = defineRoute({
    ...common,
    method: 'GET',
    path: `/v1/${plural}/{id}`,
    operationId: `get${singular}`,
    summary: `One ${lower}, by entity id`,
    params: entityIdParams,
    response: { status: 200, schema: kind.schema },
    handler: ({ params, read }) => read(`${plural}.get`, { entity_id: params.id }, ASSET_READ_TAGS),
  });
  const inventory = defineRoute({
    ...common,
    method: 'GET',
    path: `/v1/${plural}/{id}/inventory`,
    operationId: `get${singular}Inventory`,
    summary: `A ${lower}’s inventory, nested containers included`,
    params: entityIdParams,
    response: { status: 200, schema: Inventory },
    handler: ({ params, read }) => read(`${plural}.inventory`, { entity_id: params.id }, ASSET_READ_TAGS),
  });
  return [types, one, inventory];
}
