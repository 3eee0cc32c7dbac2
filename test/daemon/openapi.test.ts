import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, COMMON_ERRORS } from '../../daemon/openapi.ts';
import { ROUTES } from '../../daemon/routes/index.ts';
import { ERROR_CATALOGUE } from '../../daemon/http/error-catalogue.ts';
import { TEST_ROUTES } from '../support/test-routes.ts';

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters: Array<{ name: string; in: string }>;
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
    expect(thing?.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:limit']);
    expect(Object.keys(thing?.responses ?? {})).toContain('304');
    expect(testDoc.paths['/v1/echo']?.['post']?.requestBody).toBeDefined();
    expect(testDoc.paths['/v1/things/special']?.['get']?.deprecated).toBe(true);
  });
});
