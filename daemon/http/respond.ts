/** Serialization: JSON bodies and the error envelope (api-v1.md "Error envelope"). */
import type { ApiError } from './api-error.ts';
import type { ApiResponse } from './types.ts';

export function json(
  status: number,
  value: unknown,
  headers: Record<string, string>,
  stringify: (value: unknown) => string = JSON.stringify,
): ApiResponse {
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(stringify(value)),
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
