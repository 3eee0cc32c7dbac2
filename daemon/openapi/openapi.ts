/**
 * GET /openapi.json: an OpenAPI 3.1 document derived from the route table and the error
 * catalogue, never written by hand (one route table is the single source of truth). zod's own
 * JSON Schema output (draft 2020-12, which OpenAPI 3.1 uses) supplies every schema; named schemas
 * (`.meta({id})`) become components. Parameters are documented as what they mean (`asParam` in
 * daemon/routes/params.ts); statuses, error codes and headers come from daemon/openapi/openapi-responses.ts,
 * prose from daemon/openapi/openapi-text.ts. Decisions: docs/openapi.md.
 */
import * as z from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../http/error-catalogue.ts';
import {
  errorResponse,
  headerParameters,
  REQUEST_HEADERS,
  RESPONSE_HEADERS,
  statusesOf,
  successHeaders,
} from './openapi-responses.ts';
import { describeRoute, INFO, TAGS } from './openapi-text.ts';
import { openObjects } from './open-schema.ts';
import type { AnyRoute } from '../http/define-route.ts';
import { PARAM_SCHEMAS } from '../routes/params.ts';
import { SCOPES } from '../scopes.ts';
import { API_VERSION } from '../version.ts';

export { COMMON_ERRORS, statusesOf } from './openapi-responses.ts';

type JsonSchema = Record<string, unknown>;

interface Components {
  schemas: Record<string, JsonSchema>;
  responses: Record<string, JsonSchema>;
}

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

export function buildOpenApi(routes: readonly AnyRoute[]): JsonSchema {
  const components: Components = { schemas: {}, responses: {} };
  hoist(ERROR_ENVELOPE, 'output', components.schemas);
  components.schemas['Health'] = HEALTH;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operation(route, components);
  }
  Object.assign(paths, metaPaths());
  const tags = [...new Set([...routes.map((route) => route.tag), 'Meta'])];
  return {
    openapi: '3.1.0',
    info: { ...INFO, version: API_VERSION },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    tags: tags.map((name) => ({ name, description: TAGS[name]?.description ?? name })),
    paths,
    components: {
      securitySchemes: { apiKey: securityScheme(routes) },
      schemas: components.schemas,
      responses: components.responses,
      parameters: used(REQUEST_HEADERS, 'parameters', [paths, components]),
      headers: used(RESPONSE_HEADERS, 'headers', [paths, components]),
    },
  };
}

/**
 * The API key, described as an OAuth2-style bearer token so that each operation's security
 * requirement can name its scope and every tool sees it (docs/openapi.md). The key travels as an
 * OAuth2 bearer token does (RFC 6750); there is no token endpoint: keys come from
 * `modgate keys create`, hence a tokenUrl under the reserved `.invalid` domain.
 */
function securityScheme(routes: readonly AnyRoute[]): JsonSchema {
  const scopes: Record<string, string> = {};
  for (const scope of SCOPES) {
    const granted = routes.filter((route) => route.scope === scope).map((r) => `${r.method} ${r.path}`);
    scopes[scope] = granted.length > 0 ? granted.join(', ') : 'No operation of this document';
  }
  return {
    type: 'oauth2',
    description:
      'An API key from `modgate keys create --scopes …`, sent as `Authorization: Bearer <key>` exactly like an OAuth2 bearer token. There is no token endpoint. A key without the scope an operation lists gets 403 `insufficient_scope`.',
    flows: {
      clientCredentials: { tokenUrl: 'https://keys-come-from-modgate-keys-create.invalid/', scopes },
    },
  };
}

/** The entries of a components section that the document refers to. */
function used<T extends Record<string, unknown>>(all: T, section: string, paths: unknown): Partial<T> {
  const text = JSON.stringify(paths);
  return Object.fromEntries(
    Object.entries(all).filter(([name]) => text.includes(`"#/components/${section}/${name}"`)),
  ) as Partial<T>;
}

function operation(route: AnyRoute, components: Components): JsonSchema {
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    description: describeRoute(route),
    tags: [route.tag],
    security: [{ apiKey: [route.scope] }],
    'x-required-scope': route.scope,
    ...(route.feature ? { 'x-plan-feature': route.feature } : {}),
    parameters: [
      ...parameters(route.params, 'path', components.schemas),
      ...parameters(route.query, 'query', components.schemas),
      ...headerParameters(route),
      ...Object.entries(route.stream?.headers ?? {}).map(([name, description]) => ({
        name,
        in: 'header',
        required: false,
        description,
        schema: { type: 'string' },
      })),
    ],
    responses: responses(route, components),
  };
  if (route.body) {
    op['requestBody'] = {
      required: true,
      content: { 'application/json': { schema: hoist(route.body, 'input', components.schemas) } },
    };
  }
  if (route.deprecated) op['deprecated'] = true;
  return op;
}

export function parameters(
  schema: z.ZodType | undefined,
  where: 'path' | 'query',
  components: Record<string, JsonSchema>,
) {
  if (!schema) return [];
  const object = hoist(schema, 'input', components, documentedParam);
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

/** A parameter declared with `asParam` is documented as what it means, not as its text. */
function documentedParam(ctx: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void {
  const documented = PARAM_SCHEMAS.get(ctx.zodSchema as z.ZodType);
  if (!documented) return;
  for (const key of Object.keys(ctx.jsonSchema)) if (key !== 'description') delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, documented.schema);
}

function responses(route: AnyRoute, components: Components): JsonSchema {
  const out: JsonSchema = {};
  for (const { status, codes } of statusesOf(route)) {
    if (codes.length > 0) {
      out[String(status)] = errorResponse(status, codes, components);
    } else if (status === 304) {
      out['304'] = {
        description: 'Not Modified: If-None-Match matched the current ETag; no body',
        headers: successHeaders(route, 304),
      };
    } else {
      const success: JsonSchema = { description: 'Success', headers: successHeaders(route, status) };
      if (status !== 204) {
        success['content'] = {
          'application/json': { schema: hoist(route.response.schema, 'output', components.schemas) },
        };
      }
      if (route.stream && status !== 204) {
        (success['content'] as JsonSchema)[route.stream.contentType] = {
          schema: {
            type: 'string',
            description: 'Server-Sent Events: id, event (the type), data (the JSON event)',
          },
        };
      }
      out[String(status)] = success;
    }
  }
  return out;
}

/** GET /healthz's body (daemon/http/healthz.ts `HealthBody`). */
const HEALTH = {
  type: 'object',
  properties: {
    status: {
      type: 'string',
      enum: ['ok', 'degraded'],
      description: '`degraded` while no mod is connected or a record file cannot be written',
    },
    service: { type: 'string', const: 'modgate' },
    mod_connected: { type: 'boolean' },
    mod_version: { type: ['string', 'null'] },
    api_enabled: { type: 'boolean' },
    started_at: { type: 'string', format: 'date-time' },
    uptime_sec: { type: 'integer', minimum: 0 },
    storage_faults: {
      type: 'array',
      items: { type: 'string' },
      description: 'Data files the daemon could not write (docs/operations.md)',
    },
    worker_faults: {
      type: 'array',
      items: { type: 'string' },
      description: 'Background loops (webhook delivery) that failed and restarted in the last 5 minutes',
    },
  },
  required: [
    'status',
    'service',
    'mod_connected',
    'mod_version',
    'api_enabled',
    'started_at',
    'uptime_sec',
    'storage_faults',
    'worker_faults',
  ],
};

/** The two paths outside /v1: no key, no rate-limit headers on the health check. */
function metaPaths(): Record<string, unknown> {
  const common = { tags: ['Meta'], security: [] };
  return {
    '/healthz': {
      get: {
        ...common,
        operationId: 'getHealth',
        summary: 'Liveness for load balancers',
        description:
          '200 while the daemon serves, whether or not a game mod is connected; with `?mod=required`, 503 while none is. Logged at debug only. More: docs/operations.md.',
        parameters: [
          {
            name: 'mod',
            in: 'query',
            required: false,
            description: '`required`: answer 503 while no game mod is connected',
            schema: { type: 'string', enum: ['required'] },
          },
        ],
        responses: {
          '200': {
            description: 'The daemon serves; mod_connected says whether a game mod is connected',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
          },
          '4XX': {
            description:
              'Refused by the HTTP server before the daemon reads it (400 malformed, 408 request timeout, 431 headers too large); no body',
          },
          '503': {
            description: 'mod=required and no game mod is connected',
            headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
          },
        },
      },
    },
    '/openapi.json': {
      get: {
        ...common,
        operationId: 'getOpenApi',
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of this daemon, generated from its route table.',
        responses: {
          '200': {
            description: 'OpenAPI 3.1 document',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '429': {
            description: '`rate_limited`: the per-address limit',
            headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
          },
        },
      },
    },
  };
}

/**
 * Converts a zod schema and moves its named definitions into components, so each named schema
 * appears once. Two different shapes under one name is a bug in the route table.
 */
export function hoist(
  schema: z.ZodType,
  io: 'input' | 'output',
  components: Record<string, JsonSchema>,
  override?: (ctx: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }) => void,
): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    // Responses may gain fields within v1 (open objects); strict request shapes stay closed.
    override: (ctx) => {
      openObjects(ctx);
      override?.(ctx);
    },
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
