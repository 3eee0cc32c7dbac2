/**
 * The typed REST client (docs/client.md): openapi-fetch over the types openapi-typescript
 * generates from the daemon's own /openapi.json (client/schema.ts, `npm run gen:client`). Paths,
 * parameters, bodies, responses and error envelopes are all typed; nothing here knows a route.
 * Runs wherever `fetch` does (Node.js 20+, browsers, Deno, Bun): no Node.js import.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

export type { components, operations, paths } from './schema.ts';

/** The error envelope every /v1 failure carries (`error.code` is what to branch on). */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type ErrorCode = ErrorEnvelope['error']['code'];

/** A client of one daemon, typed by path and method: `client.GET('/v1/players', …)`. */
export type ModgateClient = Client<paths>;

export interface ModgateClientOptions {
  /** Where the daemon listens, e.g. `http://127.0.0.1:8080` (paths already start with /v1). */
  baseUrl: string;
  /** An API key from `modgate keys create`; sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Another fetch (a test double, undici with a proxy); the global one by default. */
  fetch?: ClientOptions['fetch'];
  /** Headers sent with every request besides Authorization. */
  headers?: Record<string, string>;
}

export function createModgateClient(options: ModgateClientOptions): ModgateClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/**
 * A fresh Idempotency-Key for one write. Keep it and send the same one when retrying that write:
 * the daemon replays the first outcome and the game applies the change once.
 */
export function idempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** Narrows an unknown `error` (from a response) to the envelope. */
export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
  );
}
