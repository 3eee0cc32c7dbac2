/**
 * What /openapi.json says each operation can answer, derived from its declaration and the
 * pipeline's stages (docs/pipeline.md): every status, the error envelope with the `code` values
 * that status can carry on that route, and the headers the daemon reads and writes.
 */
import {
  ANY_ERROR_CATALOGUE,
  type AnyErrorCode,
  ERROR_CATALOGUE,
  type ErrorCode,
} from '../http/error-catalogue.ts';
import { KEY_PATTERN } from '../idempotency/idempotency.ts';
import type { AnyRoute } from '../http/define-route.ts';

type JsonSchema = Record<string, unknown>;

/** Every /v1 route can answer with these, whatever it does (docs/pipeline.md). */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'validation_error', // unknown query parameters, or a body where none is taken
  'unauthorized',
  'premium_required',
  'ip_not_allowed',
  'insufficient_scope',
  'not_found', // the API is disabled
  'rate_limited',
  'internal',
];

/** Methods that take an Idempotency-Key (the pipeline's writes). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** 502: the game server broke the op contract or failed inside the mod (`internal`). */
export const BAD_GATEWAY = 502;

/** A status a route can answer with and the error codes behind it (none for 2xx and 304). */
export interface RouteStatus {
  status: number;
  codes: readonly ErrorCode[];
}

/** Does this route reach the game server (and so can answer 502, 503, 504)? */
function callsMod(route: AnyRoute): boolean {
  return route.errors.includes('server_unavailable');
}

/** Reads If-Match: the routes that can answer 412. */
export function takesIfMatch(route: AnyRoute): boolean {
  return route.errors.includes('precondition_failed');
}

export function isCacheable(route: AnyRoute): boolean {
  return route.cache.kind === 'private';
}

/** Every error code the route can answer with, in catalogue order. */
export function errorCodesOf(route: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...route.errors]);
  if (route.body) {
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  if (IDEMPOTENT_METHODS.has(route.method)) codes.add('idempotency_conflict');
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => codes.has(code));
}

/** Every status the route can answer with, ascending, with the codes each carries. */
export function statusesOf(route: AnyRoute): RouteStatus[] {
  const byStatus = new Map<number, ErrorCode[]>([[route.response.status, []]]);
  if (isCacheable(route)) byStatus.set(304, []);
  for (const code of errorCodesOf(route)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  if (callsMod(route)) byStatus.set(BAD_GATEWAY, ['internal']);
  return [...byStatus.entries()].sort(([a], [b]) => a - b).map(([status, codes]) => ({ status, codes }));
}

const header = (description: string, schema: JsonSchema = { type: 'string' }, required = false) => ({
  description,
  ...(required ? { required: true } : {}),
  schema,
});

/** Response headers, under components.headers. */
export const RESPONSE_HEADERS = {
  'API-Version': header('API version, `<major>.<minor>`', { type: 'string' }, true),
  'X-Request-Id': header('This request; also `request_id` in an error envelope', { type: 'string' }, true),
  'X-Content-Type-Options': header('Always `nosniff`', { type: 'string', const: 'nosniff' }, true),
  'RateLimit-Limit': header('Requests the key may make in the current window', { type: 'integer' }, true),
  'RateLimit-Remaining': header('Requests left in the current window', { type: 'integer' }, true),
  'RateLimit-Reset': header('Seconds until the window resets', { type: 'integer' }, true),
  'RateLimit-Policy': header('`<limit>;w=<window seconds>`, e.g. `120;w=60`', { type: 'string' }, true),
  'Cache-Control': header(
    '`private, max-age=N` on cacheable reads, `private, no-store` on the rest, `no-store` on errors',
    { type: 'string' },
    true,
  ),
  ETag: header('Strong validator of the representation; send it back as If-None-Match', {
    type: 'string',
  }),
  'Retry-After': header('Seconds to wait before retrying', { type: 'integer', minimum: 1 }, true),
  'WWW-Authenticate': header('`Bearer realm="modgate"`', { type: 'string' }, true),
  'Idempotent-Replayed': header('`true` when this is the stored outcome of an earlier request', {
    type: 'string',
    const: 'true',
  }),
  Deprecation: header('RFC 9745: `@<unix-seconds>` since when the operation is deprecated'),
  Sunset: header('RFC 8594: the HTTP-date the operation goes away'),
} satisfies Record<string, JsonSchema>;

type HeaderName = keyof typeof RESPONSE_HEADERS;

export const REQUEST_HEADERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A new value per operation, the same on every retry of it: a retry replays the first outcome and the game applies the change once (docs/idempotency.md)',
    schema: { type: 'string', pattern: KEY_PATTERN.source, minLength: 1, maxLength: 255 },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An ETag from an earlier response: 304 with no body while the representation is unchanged',
    schema: { type: 'string' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The ETag of GET /v1/players/{ref}/moderation: the write runs only while it still matches, else 412 and nothing changes',
    schema: { type: 'string' },
  },
} as const;

/** The request-header parameters a route reads. */
export function headerParameters(route: AnyRoute): Array<{ $ref: string }> {
  const names: Array<keyof typeof REQUEST_HEADERS> = [];
  if (IDEMPOTENT_METHODS.has(route.method)) names.push('IdempotencyKey');
  if (isCacheable(route)) names.push('IfNoneMatch');
  if (takesIfMatch(route)) names.push('IfMatch');
  return names.map((name) => ({ $ref: `#/components/parameters/${name}` }));
}

const COMMON_HEADERS: HeaderName[] = [
  'API-Version',
  'X-Request-Id',
  'X-Content-Type-Options',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
];

function headerRefs(names: HeaderName[]) {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** Headers of the success and 304 responses of a route. */
export function successHeaders(route: AnyRoute, status: number) {
  const names: HeaderName[] = [...COMMON_HEADERS, 'Cache-Control'];
  if (isCacheable(route)) names.push('ETag');
  if (IDEMPOTENT_METHODS.has(route.method) && status !== 304) names.push('Idempotent-Replayed');
  if (route.deprecated) names.push('Deprecation', 'Sunset');
  return headerRefs(names);
}

function errorHeaders(status: number) {
  const names: HeaderName[] = [...COMMON_HEADERS, 'Cache-Control'];
  if (status === 401) names.push('WWW-Authenticate');
  if (status === 429 || status === 503) names.push('Retry-After');
  return headerRefs(names);
}

/** `validation_error` → `ValidationError`. */
function pascal(code: string): string {
  return code.replace(/(^|_)([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase());
}

/** The component name of the error response for these codes at this status. */
export function errorResponseName(status: number, codes: readonly AnyErrorCode[]): string {
  return `Error${status}${codes.map(pascal).join('Or')}`;
}

/** An error's `details` as /v1 documents them. */
const ERROR_DETAILS: JsonSchema = {
  type: 'object',
  additionalProperties: {},
  description:
    'Structured context: errors (validation), missing_scope, mod_message, mutation_applied, action',
};

/**
 * The error envelope with `code` narrowed to `codes` (docs/errors.md), and the
 * response that carries it, added to `components` once per (status, codes).
 */
export function errorResponse(
  status: number,
  codes: readonly AnyErrorCode[],
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema> },
  details: JsonSchema = ERROR_DETAILS,
): { $ref: string } {
  const name = errorResponseName(status, codes);
  if (!components.responses[name]) {
    components.schemas[name] = {
      type: 'object',
      description: `The error envelope of a ${status}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string', enum: [...codes], description: 'Branch on this' },
            message: { type: 'string', description: 'Human text; never branch on it' },
            request_id: { type: 'string', description: 'Also in the X-Request-Id header' },
            details,
          },
          required: ['code', 'message', 'request_id'],
        },
      },
      required: ['error'],
    };
    components.responses[name] = {
      description: codes.map((code) => `\`${code}\`: ${ANY_ERROR_CATALOGUE[code].message}`).join(' '),
      headers: errorHeaders(status),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
    };
  }
  return { $ref: `#/components/responses/${name}` };
}
