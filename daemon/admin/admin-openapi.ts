/**
 * GET /admin/v1/openapi.json: an OpenAPI 3.1 document of the admin API generated from
 * ADMIN_ROUTES, with the same schema conversion and error responses as /v1's (daemon/openapi/):
 * one declaration per route drives the router, validation and this document. `npm run
 * lint:openapi` lints it as it lints the public one.
 */
import { ANY_ERROR_CATALOGUE, type AnyErrorCode } from '../http/error-catalogue.ts';
import { hoist, parameters } from '../openapi/openapi.ts';
import { errorResponse, RESPONSE_HEADERS } from '../openapi/openapi-responses.ts';
import { INFO } from '../openapi/openapi-text.ts';
import { API_VERSION } from '../version.ts';
import { ADMIN_RESOURCES, type AnyAdminRoute } from './define-admin-route.ts';
import { ADMIN_ROLES, roleAllows } from './roles.ts';

type JsonSchema = Record<string, unknown>;

/** Every admin route can answer with these (docs/admin.md, "How a request is handled"). */
export const ADMIN_COMMON_ERRORS: readonly AnyErrorCode[] = [
  'validation_error',
  'unauthorized',
  'cross_origin_request',
  'not_found',
  'misdirected_request',
  'rate_limited',
  'internal',
];

const WRITE_ERRORS: readonly AnyErrorCode[] = ['unsupported_media_type', 'payload_too_large'];
/** A write whose data file cannot be read or written (broken by hand, loose permissions). */
const DATA_DIR_ERRORS: readonly AnyErrorCode[] = ['conflict'];

/** An admin error's `details`: /v1's, and which record a not_found or conflict is about. */
const ADMIN_ERROR_DETAILS: JsonSchema = {
  type: 'object',
  properties: {
    resource: {
      type: 'string',
      enum: [...ADMIN_RESOURCES],
      description: 'What a not_found or conflict of /keys, /tokens or /webhooks is about',
    },
    id: { type: 'string', description: "That record's id, when the path names one" },
  },
  additionalProperties: {},
  description: 'Structured context: errors (validation), resource and id (not_found, conflict)',
};

const TAG_TEXT: Record<string, string> = {
  Status: 'The daemon, the mod link and recent traffic',
  Plan: 'The server plan and the /v1 API switch',
  Tokens: 'Admin tokens for the TCP listener',
};

export function adminOpenApi(routes: readonly AnyAdminRoute[]): JsonSchema {
  const components = {
    schemas: {} as Record<string, JsonSchema>,
    responses: {} as Record<string, JsonSchema>,
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operation(route, components);
  }
  const tags = [...new Set(routes.map((route) => route.tag))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'modgate admin API',
      version: API_VERSION,
      description:
        'The control plane of one modgate daemon: on `<data-dir>/admin.sock` (the file permission is the authentication) and, when configured, on TCP with admin tokens. See docs/admin.md.',
      contact: INFO.contact,
      license: INFO.license,
    },
    servers: [{ url: '/' }],
    security: [{ adminToken: [] }],
    tags: tags.map((name) => ({ name, description: TAG_TEXT[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An admin token from `modgate admin tokens create` (`mgadm_…`), on the TCP listener. admin.sock needs none.',
        },
      },
      schemas: components.schemas,
      responses: components.responses,
      headers: usedHeaders(components.responses),
    },
  };
}

/** The response headers the error responses refer to. */
function usedHeaders(responses: Record<string, JsonSchema>): JsonSchema {
  const text = JSON.stringify(responses);
  return Object.fromEntries(
    Object.entries(RESPONSE_HEADERS).filter(([name]) => text.includes(`"#/components/headers/${name}"`)),
  );
}

function operation(
  route: AnyAdminRoute,
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema> },
): JsonSchema {
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description ?? route.summary,
    tags: [route.tag],
    // Which roles may call it (docs/admin.md, "Roles"); any other gets 403 forbidden.
    'x-roles': rolesOf(route),
    parameters: [
      ...parameters(route.params, 'path', components.schemas),
      ...parameters(route.query, 'query', components.schemas),
      ...(route.method === 'POST' ? [IDEMPOTENCY_KEY] : []),
    ],
    responses: responses(route, components),
  };
  // A game route names its /v1 scope, as /v1's document does (docs/admin.md, "Game routes").
  if (route.access?.kind === 'game') op['x-required-scope'] = route.access.scope;
  if (route.body) {
    op['requestBody'] = {
      required: true,
      content: { 'application/json': { schema: hoist(route.body, 'input', components.schemas) } },
    };
  }
  return op;
}

function responses(
  route: AnyAdminRoute,
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema> },
): JsonSchema {
  const out: JsonSchema = {};
  const success: JsonSchema = { description: route.summary };
  if (route.stream) {
    success['content'] = { 'text/event-stream': { schema: { type: 'string' } } };
  } else if (route.response.schema && route.response.status !== 204) {
    success['content'] = {
      'application/json': { schema: hoist(route.response.schema, 'output', components.schemas) },
    };
  }
  out[String(route.response.status)] = success;
  const codes = new Set<AnyErrorCode>([...ADMIN_COMMON_ERRORS, ...route.errors]);
  if (route.body) for (const code of WRITE_ERRORS) codes.add(code);
  if (route.method !== 'GET') for (const code of DATA_DIR_ERRORS) codes.add(code);
  if (rolesOf(route).length < ADMIN_ROLES.length) codes.add('forbidden');
  const byStatus = new Map<number, AnyErrorCode[]>();
  for (const code of Object.keys(ANY_ERROR_CATALOGUE) as AnyErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = ANY_ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = errorResponse(status, list, components, ADMIN_ERROR_DETAILS);
  }
  return out;
}

/** The roles whose callers this route answers (the role stage, stages/role-check.ts). */
export function rolesOf(route: AnyAdminRoute): string[] {
  return ADMIN_ROLES.filter((role) => roleAllows(role, route.access));
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Replays the first outcome of a retried POST instead of acting twice (docs/idempotency.md).',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
};
