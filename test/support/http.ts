/**
 * Requests through a stack's real HTTP listener (not the in-process core): what the end-to-end
 * tests of the REST surface send, as a client would.
 */
import { eventually, type Stack } from '../../harness/stack.ts';
import type { CreatedKey } from '../../harness/data-dir.ts';

export interface HttpInit {
  method?: string;
  /** Sent as JSON with `Content-Type: application/json`. */
  body?: unknown;
  /** The stack's all-scopes key unless given; null sends no Authorization header. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  json: unknown;
}

export async function http(
  stack: Pick<Stack, 'baseUrl' | 'key'>,
  path: string,
  init: HttpInit = {},
): Promise<HttpResult> {
  const key = init.key === undefined ? stack.key : init.key;
  const headers: Record<string, string> = {
    ...(key === null ? {} : { authorization: `Bearer ${key}` }),
    ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...init.headers,
  };
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    json: text === '' ? null : (JSON.parse(text) as unknown),
  };
}

/** The `error` of an error envelope. */
export function errorOf(json: unknown): { code: string; message: string; details?: Record<string, unknown> } {
  return (json as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
}

/**
 * `keys create` on the stack's data dir, then waits until the running daemon has loaded the key
 * (the CLI goes through its admin socket, so the first probe finds it). Probes `GET /v1/server`: a key without server:read
 * gets a 403 that spends none of its quota; one with it spends one request.
 */
export async function createLoadedKey(stack: Stack, ...flags: string[]): Promise<CreatedKey> {
  const created = await stack.data.createKey(...flags);
  await eventually(async () => (await http(stack, '/v1/server', { key: created.key })).status !== 401);
  return created;
}
