import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, COMMON_ERRORS } from '../../../daemon/openapi/openapi.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';
import { ERROR_CATALOGUE } from '../../../daemon/http/error-catalogue.ts';
import { TEST_ROUTES } from '../../support/test-routes.ts';

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters: Array<{ name: string; in: string } | { $ref: string }>;
        responses: Record<string, unknown>;
        requestBody?: unknown;
        deprecated?: boolean;
        'x-required-scope': string;
      }
    >
  >;
  components: { schemas: Record<string, unknown> };
};

describe('the OpenAPI document', () => {
  const doc = buildOpenApi(ROUTES) as unknown as Doc;

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every route of the route table with its scope', () => {
    for (const route of ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op?.['x-required-scope']).toBe(route.scope);
    }
  });

  it('lists every error status a route can answer with, with the envelope schema', () => {
    const op = doc.paths['/v1/server']?.['get'];
    const statuses = new Set(
      [...COMMON_ERRORS, 'server_unavailable', 'gateway_timeout'].map((c) =>
        String(ERROR_CATALOGUE[c as keyof typeof ERROR_CATALOGUE].status),
      ),
    );
    for (const status of statuses) expect(Object.keys(op?.responses ?? {})).toContain(status);
    expect(doc.components.schemas['ErrorEnvelope']).toBeDefined();
    expect(doc.components.schemas['ServerStatus']).toBeDefined();
  });

  it('describes parameters, bodies, 304s and deprecation from the declarations alone', async () => {
    const testDoc = buildOpenApi(TEST_ROUTES) as unknown as Doc;
    expect((await new Validator().validate(testDoc as never)).valid).toBe(true);
    const thing = testDoc.paths['/v1/things/{id}']?.['get'];
    expect(thing?.parameters.map((p) => ('$ref' in p ? p.$ref : `${p.in}:${p.name}`))).toEqual([
      'path:id',
      'query:limit',
      '#/components/parameters/IfNoneMatch',
    ]);
    expect(Object.keys(thing?.responses ?? {})).toContain('304');
    expect(testDoc.paths['/v1/echo']?.['post']?.requestBody).toBeDefined();
    expect(testDoc.paths['/v1/things/special']?.['get']?.deprecated).toBe(true);
  });

  type Schema = Record<string, unknown>;
  const full = doc as unknown as {
    info: { contact?: unknown; license?: { name: string } };
    tags: Array<{ name: string; description?: string }>;
    paths: Record<string, Record<string, Schema & { parameters: Array<Schema> }>>;
    components: { schemas: Record<string, Schema> };
  };
  const param = (path: string, name: string, method = 'get') =>
    full.paths[path]?.[method]?.parameters.find((p) => p['name'] === name)?.['schema'] as Schema | undefined;

  it('types query and path parameters as what they mean, with ranges and defaults', () => {
    for (const route of ROUTES.filter((r) => r.query)) {
      const limit = param(route.path, 'limit');
      if (!limit) continue;
      // The spec's lists go to 100 (default 50); a page of events is ours and larger (docs/events.md).
      const spec =
        route.path === '/v1/events' ? { maximum: 1_000, default: 100 } : { maximum: 100, default: 50 };
      expect(limit, route.path).toMatchObject({ type: 'integer', ...spec });
      expect([1, 10]).toContain(limit['minimum']);
    }
    expect(param('/v1/players', 'limit')).toMatchObject({ minimum: 10 });
    expect(param('/v1/packs', 'limit')).toMatchObject({ minimum: 1 });
    expect(param('/v1/players', 'online')).toEqual({ type: 'boolean' });
    expect(param('/v1/vehicles', 'is_locked')).toEqual({ type: 'boolean' });
    expect(param('/v1/bases', 'min_health')).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(param('/v1/squads', 'min_members')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(param('/v1/squads', 'active_within_days')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param('/v1/packs', 'category_id')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param('/v1/packs/{id}', 'id')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param('/v1/squads/{id}', 'id')).toMatchObject({ type: 'integer', minimum: 1 });
    // Entity ids can pass 2^53-1, and the spec writes claim-code pack ids as strings.
    expect(param('/v1/vehicles/{id}', 'id')).toMatchObject({ type: 'string' });
    expect(param('/v1/claim-codes', 'pack_id')).toMatchObject({ type: 'string' });
    expect(param('/v1/economy/transactions', 'asset')).toMatchObject({ enum: ['cash', 'gold', 'coins'] });
  });

  it('documents the link route ref as a platform id only, refusing social: refs', () => {
    const pattern = new RegExp(param('/v1/players/{ref}/social', 'ref', 'post')?.['pattern'] as string);
    expect(pattern.test('76561198000000001')).toBe(true);
    expect(pattern.test('social:123456789012345678')).toBe(false);
    const unlink = new RegExp(param('/v1/players/{ref}/social', 'ref', 'delete')?.['pattern'] as string);
    expect(unlink.test('social:123456789012345678')).toBe(true);
  });

  it('states the cross-field body rules and the defaults the daemon applies', () => {
    const ban = full.components.schemas['BanRequest'] as { allOf: Schema[] };
    expect(JSON.stringify(ban.allOf[0])).toContain('"maximum":120');
    expect(ban.allOf[0]).toMatchObject({
      if: { properties: { permanent: { const: true } } },
      else: { required: ['duration'] },
    });
    const mute = full.components.schemas['MuteRequest'] as Schema;
    expect(JSON.stringify(mute)).not.toContain('months');
    expect(mute).toMatchObject({ else: { required: ['duration'] } });
    expect(full.components.schemas['PackDeliverRequest']?.['oneOf']).toHaveLength(2);
    const defaults = (schema: string) =>
      Object.fromEntries(
        Object.entries(full.components.schemas[schema]?.['properties'] as Record<string, Schema>)
          .filter(([, property]) => 'default' in property)
          .map(([name, property]) => [name, property['default']]),
      );
    expect(defaults('BanRequest')).toEqual({
      reason: 'No reason provided',
      permanent: false,
      duration_unit: 'hours',
      squad_ban: false,
    });
    expect(defaults('MuteRequest')).toMatchObject({ channels: ['Global', 'Local', 'Squad'] });
    expect(defaults('PackDeliverRequest')).toEqual({ quantity: 1 });
    expect(defaults('ClaimCodeMintRequest')).toEqual({ max_uses: 1, expiry_days: 0 });
    expect(defaults('BulkCurrencyRequest')).toEqual({ mode: 'delta', target: 'all' });
    expect(full.components.schemas['CurrencyRequest']).toMatchObject({
      if: { properties: { mode: { const: 'set' } } },
    });
  });

  it('describes every operation and tag, names a contact and a licence, and marks the shop feature', () => {
    expect(full.info.contact).toBeDefined();
    expect(full.info.license?.name).toBeTruthy();
    for (const tag of full.tags) expect(tag.description, tag.name).toBeTruthy();
    for (const [path, methods] of Object.entries(full.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op['description'], `${method} ${path}`).toBeTruthy();
      }
    }
    for (const route of ROUTES) {
      const op = full.paths[route.path]?.[route.method.toLowerCase()];
      expect(op?.['x-plan-feature']).toBe(route.feature);
    }
    expect(ROUTES.filter((route) => route.feature === 'shop')).toHaveLength(7);
  });

  it('makes nullable exactly the fields docs/openapi.md lists where the spec gives no null', async () => {
    const nullable = (schema: string, field: string) => {
      const property = (full.components.schemas[schema]?.['properties'] as Record<string, Schema>)[field];
      return JSON.stringify(property).includes('"null"');
    };
    const decided = [
      ['RosterRow', 'squad'],
      ['Container', 'base_id'],
      ['Container', 'base_name'],
      ['Violation', 'expires_at'],
      ['ClaimCode', 'dm'],
    ];
    const page = await readFile(new URL('../../../docs/openapi.md', import.meta.url), 'utf8');
    for (const [schema, field] of decided) {
      expect(nullable(schema as string, field as string), `${schema}.${field}`).toBe(true);
      expect(page).toContain(`\`${field}\``);
    }
    expect(nullable('Container', 'custom_name')).toBe(false);
  });
});
