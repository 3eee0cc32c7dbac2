/**
 * GET /openapi.json: an OpenAPI 3.1 document derived from the route table and the error
 * catalogue, never written by hand (ARCHITECTURE.md decision 3). zod's own JSON Schema output
 * (draft 2020-12, which OpenAPI 3.1 uses) supplies every schema; named schemas (`.meta({id})`)
 * become components.
 */
import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from './http/error-catalogue.ts';
import { openObjects } from './open-schema.ts';
import type { AnyRoute } from './routes/define-route.ts';
import { API_VERSION } from './version.ts';

type JsonSchema = Record<string, unknown>;

/** Every /v1 route can answer with these, whatever it does. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'validation_error',
  'unauthorized',
  'premium_required',
  'ip_not_allowed',
  'insufficient_scope',
  'not_found',
  'rate_limited',
  'internal',
];

const ERROR_ENVELOPE = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]]),
      message: z.string().describe('Human text; never branch on it'),
      request_id: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });

const HEADER = (description: string, type = 'string') => ({ description, schema: { type } });
const RESPONSE_HEADERS = {
  'API-Version': HEADER('API version, `<major>.<minor>`'),
  'RateLimit-Limit': HEADER('Requests allowed in the current window', 'integer'),
  'RateLimit-Remaining': HEADER('Requests left in the current window', 'integer'),
  'RateLimit-Reset': HEADER('Seconds until the window resets', 'integer'),
  'RateLimit-Policy': HEADER('`<limit>;w=<window seconds>`'),
  'X-Request-Id': HEADER('Also in error envelopes as request_id'),
};

export function buildOpenApi(routes: readonly AnyRoute[]): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  hoist(ERROR_ENVELOPE, 'output', components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operation(route, components);
  }
  paths['/healthz'] = {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness for load balancers: 200 while the daemon serves; ?mod=required: 503 without a mod',
      tags: ['Meta'],
      security: [],
      parameters: [
        { name: 'mod', in: 'query', required: false, schema: { type: 'string', enum: ['required'] } },
      ],
      responses: {
        '200': {
          description: 'The daemon serves; mod_connected says whether a game mod is connected',
          content: { 'application/json': {} },
        },
        '503': { description: 'mod=required and no mod is connected', content: { 'application/json': {} } },
      },
    },
  };
  paths['/openapi.json'] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['Meta'],
      security: [],
      responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': {} } } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'modgate game-server management API',
      version: API_VERSION,
      description:
        'Read players, moderate, move currency, deliver packs and run commands on one game server.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: mg_live_…' } },
      schemas: components,
      headers: RESPONSE_HEADERS,
    },
  };
}

function operation(route: AnyRoute, components: Record<string, JsonSchema>): JsonSchema {
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    'x-required-scope': route.scope,
    parameters: [
      ...parameters(route.params, 'path', components),
      ...parameters(route.query, 'query', components),
    ],
    responses: responses(route, components),
  };
  if (route.body) {
    op['requestBody'] = {
      required: true,
      content: { 'application/json': { schema: hoist(route.body, 'input', components) } },
    };
  }
  if (route.deprecated) op['deprecated'] = true;
  return op;
}

function parameters(
  schema: z.ZodType | undefined,
  where: 'path' | 'query',
  components: Record<string, JsonSchema>,
) {
  if (!schema) return [];
  const object = hoist(schema, 'input', components);
  const properties = (object['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(typeof property['description'] === 'string' ? { description: property['description'] } : {}),
    schema: property,
  }));
}

function responses(route: AnyRoute, components: Record<string, JsonSchema>): JsonSchema {
  const headers = Object.fromEntries(
    Object.keys(RESPONSE_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
  const success: JsonSchema = { description: 'Success', headers };
  if (route.response.status !== 204) {
    success['content'] = {
      'application/json': { schema: hoist(route.response.schema, 'output', components) },
    };
  }
  const out: JsonSchema = { [String(route.response.status)]: success };
  if (route.cache.kind === 'private') out['304'] = { description: 'Not Modified (If-None-Match matched)' };
  const codes = [...new Set([...COMMON_ERRORS, ...route.errors])];
  for (const status of [...new Set(codes.map((code) => ERROR_CATALOGUE[code].status))].sort()) {
    const here = codes.filter((code) => ERROR_CATALOGUE[code].status === status);
    out[String(status)] = {
      description: `Error: ${here.map((code) => `\`${code}\``).join(', ')}`,
      headers,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return out;
}

/**
 * Converts a zod schema and moves its named definitions into components, so each named schema
 * appears once. Two different shapes under one name is a bug in the route table.
 */
function hoist(
  schema: z.ZodType,
  io: 'input' | 'output',
  components: Record<string, JsonSchema>,
): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: openObjects, // responses may gain fields within v1; strict request shapes stay closed
  }) as JsonSchema;
  const text = JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/');
  const {
    $defs = {},
    $schema: _drop,
    ...root
  } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  for (const [name, definition] of Object.entries($defs)) {
    const existing = components[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(definition)) {
      throw new Error(`OpenAPI: two different schemas are named ${name}`);
    }
    components[name] = definition;
  }
  return root;
}
