/**
 * Every error code the API can answer with: the table of docs/errors.md#the-codes, and nothing
 * else. The status, the default message and the description used by the OpenAPI document and by
 * docs/errors.md live here once; a test checks each code is documented.
 */
export const ERROR_CATALOGUE = {
  validation_error: { status: 400, message: 'The request failed validation.' },
  unauthorized: { status: 401, message: 'A valid API key is required.' },
  premium_required: { status: 403, message: 'This server has no active premium plan for the API.' },
  insufficient_scope: { status: 403, message: 'The API key lacks a scope this endpoint needs.' },
  ip_not_allowed: { status: 403, message: 'The API key may not be used from this address.' },
  not_found: { status: 404, message: 'Not found.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  idempotency_conflict: {
    status: 409,
    message: 'This Idempotency-Key was already used with a different request.',
  },
  precondition_failed: { status: 412, message: 'The resource changed; If-Match did not match.' },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the time in Retry-After.' },
  internal: { status: 500, message: 'Internal error.' },
  server_unavailable: { status: 503, message: 'The game server is not available.' },
  gateway_timeout: { status: 504, message: 'The game server did not respond in time.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/**
 * Codes only the admin API answers with (docs/errors.md, "Codes of the admin API"): its defences
 * against browsers, which /v1 has no use for, and what the CLI's in-process admin answers for a
 * part that needs a running daemon. Same envelope; /v1 never sends them.
 */
export const ADMIN_ERROR_CATALOGUE = {
  cross_origin_request: {
    status: 403,
    message: 'The admin API refuses requests made on behalf of another origin.',
  },
  forbidden: {
    status: 403,
    message: 'Your admin role does not allow this; ask the server owner.',
  },
  misdirected_request: {
    status: 421,
    message: 'This listener does not serve the host named in the request.',
  },
  daemon_not_running: {
    status: 503,
    message: 'No modgate daemon serves this data dir, and this needs one (modgate serve).',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type AdminErrorCode = keyof typeof ADMIN_ERROR_CATALOGUE;

/** A code of either API: what an ApiError may carry. */
export type AnyErrorCode = ErrorCode | AdminErrorCode;

export const ANY_ERROR_CATALOGUE: Record<AnyErrorCode, { status: number; message: string }> = {
  ...ERROR_CATALOGUE,
  ...ADMIN_ERROR_CATALOGUE,
};
