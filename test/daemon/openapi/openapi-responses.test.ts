import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../daemon/http/error-catalogue.ts';
import { buildOpenApi, statusesOf } from '../../../daemon/openapi/openapi.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';

type Ref = { $ref: string };
type Response = {
  description: string;
  headers?: Record<string, Ref>;
  content?: Record<string, { schema: Ref }>;
};
type Operation = {
  security: Array<Record<string, string[]>>;
  parameters: Array<Ref | { name: string; in: string }>;
  responses: Record<string, Response | Ref>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: {
    responses: Record<string, Response>;
    schemas: Record<string, { properties: { error: { properties: { code: { enum: string[] } } } } }>;
    headers: Record<string, { required?: boolean }>;
    parameters: Record<string, { name: string; in: string }>;
    securitySchemes: Record<
      string,
      { type: string; flows: { clientCredentials: { scopes: Record<string, string> } } }
    >;
  };
};

const doc = buildOpenApi(ROUTES) as unknown as Doc;
const opOf = (route: (typeof ROUTES)[number]) =>
  doc.paths[route.path]?.[route.method.toLowerCase()] as Operation;
const resolve = (response: Response | Ref): Response =>
  '$ref' in response
    ? (doc.components.responses[response.$ref.split('/').pop() as string] as Response)
    : response;
const headerNames = (op: Operation) =>
  op.parameters
    .map((p) => ('$ref' in p ? doc.components.parameters[p.$ref.split('/').pop() as string] : p))
    .filter((p) => p?.in === 'header')
    .map((p) => p?.name);

describe('what /openapi.json says each operation answers', () => {
  it('lists for every operation exactly the statuses statusesOf derives, 502 included where the game is asked', () => {
    for (const route of ROUTES) {
      const declared = Object.keys(opOf(route).responses).map(Number);
      expect(declared, `${route.method} ${route.path}`).toEqual(statusesOf(route).map((s) => s.status));
      // The game is asked by every route that can find it offline; events and webhooks are the
      // daemon's own (docs/events.md) and never reach it.
      if (route.errors.includes('server_unavailable')) expect(declared).toContain(502);
      else expect(declared).not.toContain(502);
    }
  });

  it('narrows the envelope code enum of each error status to the codes that status carries', () => {
    for (const route of ROUTES) {
      for (const { status, codes } of statusesOf(route)) {
        if (codes.length === 0) continue;
        const response = resolve(opOf(route).responses[String(status)] as Response | Ref);
        const schemaName = response.content?.['application/json']?.schema.$ref.split('/').pop() as string;
        const enumCodes = doc.components.schemas[schemaName]?.properties.error.properties.code.enum;
        expect(enumCodes, `${route.operationId} ${status}`).toEqual(codes);
        const expectedStatus = status === 502 ? 502 : ERROR_CATALOGUE[codes[0] as ErrorCode].status;
        expect(status).toBe(expectedStatus);
      }
    }
  });

  it('declares 409 idempotency_conflict, 413 and 415 on every POST, and 412 with If-Match on every player write', () => {
    for (const route of ROUTES.filter((r) => r.method === 'POST')) {
      const statuses = statusesOf(route);
      expect(statuses.find((s) => s.status === 409)?.codes).toContain('idempotency_conflict');
      expect(statuses.map((s) => s.status)).toEqual(expect.arrayContaining([413, 415]));
      expect(headerNames(opOf(route))).toContain('Idempotency-Key');
    }
    const playerWrites = ROUTES.filter((r) => /^\/v1\/players\/\{ref\}\/(ban|mute|social)$/.test(r.path));
    expect(playerWrites).toHaveLength(6);
    for (const route of playerWrites) {
      expect(headerNames(opOf(route))).toContain('If-Match');
      expect(Object.keys(opOf(route).responses)).toContain('412');
    }
    expect(ROUTES.filter((r) => headerNames(opOf(r)).includes('If-Match'))).toEqual(playerWrites);
  });

  it('pairs If-None-Match, 304 and ETag on exactly the cacheable reads', () => {
    for (const route of ROUTES) {
      const op = opOf(route);
      const cacheable = route.cache.kind === 'private';
      expect(headerNames(op).includes('If-None-Match'), route.path).toBe(cacheable);
      expect('304' in op.responses).toBe(cacheable);
      const success = resolve(op.responses[String(route.response.status)] as Response);
      expect('ETag' in (success.headers ?? {})).toBe(cacheable);
      expect(success.headers).toHaveProperty('Cache-Control');
    }
  });

  it('requires Retry-After on every 429 and 503, and the rate-limit and version headers on every response', () => {
    for (const route of ROUTES) {
      for (const [status, response] of Object.entries(opOf(route).responses)) {
        const headers = resolve(response).headers ?? {};
        for (const name of [
          'API-Version',
          'X-Request-Id',
          'RateLimit-Limit',
          'RateLimit-Remaining',
          'RateLimit-Reset',
          'RateLimit-Policy',
        ]) {
          expect(headers, `${route.operationId} ${status} ${name}`).toHaveProperty(name);
        }
        expect('Retry-After' in headers, `${route.operationId} ${status}`).toBe(
          status === '429' || status === '503',
        );
      }
    }
    expect(doc.components.headers['Retry-After']?.required).toBe(true);
  });

  it("names each operation's scope in its security requirement, from a scheme that lists every scope", () => {
    const scopes = doc.components.securitySchemes['apiKey']?.flows.clientCredentials.scopes ?? {};
    for (const route of ROUTES) {
      expect(opOf(route).security).toEqual([{ apiKey: [route.scope] }]);
      expect(scopes[route.scope]).toContain(`${route.method} ${route.path}`);
    }
  });
});
