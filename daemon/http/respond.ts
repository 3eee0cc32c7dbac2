/** Serialization: JSON bodies and the error envelope (docs/errors.md). */
import { randomBytes } from 'node:crypto';
import { API_VERSION } from '../version.ts';
import type { ApiError } from './api-error.ts';
import { bodyText, type ApiResponse } from './types.ts';

/** `req_` and 32 hex digits: the id of one request, in `X-Request-Id` and `error.request_id`. */
export function newRequestId(): string {
  if (poolOffset === ID_POOL_BYTES) {
    idPool = randomBytes(ID_POOL_BYTES);
    poolOffset = 0;
  }
  poolOffset += 16;
  return `req_${idPool.toString('hex', poolOffset - 16, poolOffset)}`;
}

/** Random bytes for request ids, drawn 4 KiB at a time rather than 16 bytes per request. */
const ID_POOL_BYTES = 4_096;
let idPool = Buffer.alloc(0);
let poolOffset = ID_POOL_BYTES;

/** The headers every response carries (docs/pipeline.md), whoever writes it. */
export function baseHeaders(requestId: string): Record<string, string> {
  return { 'api-version': API_VERSION, 'x-request-id': requestId, 'x-content-type-options': 'nosniff' };
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function json(status: number, value: unknown, headers: Record<string, string>): ApiResponse {
  return {
    status,
    headers: { ...headers, 'content-type': JSON_CONTENT_TYPE },
    body: Buffer.from(JSON.stringify(value)),
  };
}

/** `{ error: { code, message, request_id, details? } }` and no other keys. */
export function errorResponse(
  error: ApiError,
  requestId: string,
  headers: Record<string, string>,
): ApiResponse {
  const envelope: Record<string, unknown> = {
    code: error.code,
    message: error.message,
    request_id: requestId,
  };
  if (error.details !== undefined) envelope['details'] = error.details;
  return json(
    error.status,
    { error: envelope },
    { ...headers, 'cache-control': 'no-store', ...error.headers },
  );
}

/**
 * A stored error replayed for another request carries that request's id (docs/idempotency.md):
 * `error.request_id` then matches the `X-Request-Id` header and the log line of the retry.
 */
export function withRequestId(response: ApiResponse, requestId: string): ApiResponse {
  if (response.status < 400 || response.body === null) return response;
  let value: unknown;
  try {
    value = JSON.parse(bodyText(response.body));
  } catch {
    return response;
  }
  const error = (value as { error?: Record<string, unknown> } | null)?.error;
  if (typeof error !== 'object' || error === null) return response;
  const body = Buffer.from(JSON.stringify({ error: { ...error, request_id: requestId } }));
  return { ...response, body };
}

/** The error code of an enveloped response, for the audit log of a replay. */
export function errorCodeOf(response: ApiResponse): string | null {
  if (response.status < 400 || response.body === null) return null;
  try {
    const code = (JSON.parse(bodyText(response.body)) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}
