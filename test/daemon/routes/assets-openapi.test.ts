import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../../daemon/openapi/openapi.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';
import { BASE_ROUTES } from '../../../daemon/routes/bases.ts';
import { CONTAINER_ROUTES } from '../../../daemon/routes/containers.ts';
import { SQUAD_ROUTES } from '../../../daemon/routes/squads.ts';
import { VEHICLE_ROUTES } from '../../../daemon/routes/vehicles.ts';

type Operation = {
  'x-required-scope': string;
  parameters: Array<{ name: string; in: string } | { $ref: string }>;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; parameters: Record<string, { name: string; in: string }> };
};

const ASSET_ROUTES = [...SQUAD_ROUTES, ...BASE_ROUTES, ...VEHICLE_ROUTES, ...CONTAINER_ROUTES];

describe('the OpenAPI document for squads, bases, vehicles and containers', () => {
  const doc = buildOpenApi(ROUTES) as unknown as Doc;

  it('validates as OpenAPI 3.1 with the asset routes in the table', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes all seventeen endpoints with scope, 200, 304 and the query filters', () => {
    expect(ASSET_ROUTES).toHaveLength(17);
    for (const route of ASSET_ROUTES) {
      expect(ROUTES).toContain(route);
      const op = doc.paths[route.path]?.['get'];
      expect(op, route.path).toBeDefined();
      expect(op?.['x-required-scope']).toBe(route.scope);
      expect(Object.keys(op?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '304', '400', '404', '503']),
      );
    }
    const names = (path: string) =>
      doc.paths[path]?.['get']?.parameters.map((p) => {
        const param = '$ref' in p ? doc.components.parameters[p.$ref.split('/').pop() as string] : p;
        return `${param?.in}:${param?.name}`;
      });
    expect(names('/v1/containers')).toEqual([
      'query:owner_platform_id',
      'query:owner_social_id',
      'query:owner_name',
      'query:base_id',
      'query:is_locked',
      'query:is_buried',
      'query:search',
      'query:limit',
      'query:cursor',
      'header:If-None-Match',
    ]);
    expect(names('/v1/squads/{id}/vehicles')).toEqual([
      'path:id',
      'query:limit',
      'query:cursor',
      'header:If-None-Match',
    ]);
  });

  it('names the spec’s shapes as components', () => {
    for (const name of [
      'Squad',
      'SquadMember',
      'SquadSummary',
      'Base',
      'Vehicle',
      'Container',
      'InventoryItem',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });
});
