/**
 * The paths outside the route table that the pipeline answers itself (docs/pipeline.md):
 * GET /healthz, before the edge limit and without a key (docs/operations.md), and GET
 * /openapi.json, after it (docs/openapi.md). Neither is under /v1 nor in the OpenAPI document.
 */
import type { Snapshot } from '../../store/data-dir.ts';
import type { Exchange } from '../exchange.ts';
import { HEALTHZ_PATH, healthz, healthzRequiresMod } from '../healthz.ts';
import type { ModLink } from './mod-calls.ts';
import type { RequestTarget } from './target.ts';
import type { ApiRequest, ApiResponse } from '../types.ts';

export const OPENAPI_PATH = '/openapi.json';

export interface BuiltinRouteOptions {
  link: ModLink;
  snapshot(): Snapshot;
  /** The OpenAPI document, or a function that builds it on the first request for it. */
  openapi: unknown;
  /** When the daemon started. */
  startedAt: Date;
  storageFaults?: () => readonly string[];
  workerFaults?: () => readonly string[];
  now: () => number;
}

/** True for a health probe: GET or HEAD /healthz. */
export function isHealthProbe(req: ApiRequest, url: RequestTarget): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && url.pathname === HEALTHZ_PATH;
}

export class BuiltinRoutes {
  readonly #options: BuiltinRouteOptions;
  #openapiBody: Buffer | null = null;

  constructor(options: BuiltinRouteOptions) {
    this.#options = options;
  }

  /** GET /healthz (docs/operations.md): no key, outside /v1, logged at debug. */
  health(req: ApiRequest, url: RequestTarget, exchange: Exchange): ApiResponse {
    exchange.quiet = true;
    exchange.label = HEALTHZ_PATH;
    const options = this.#options;
    const peer = options.link.peer;
    const answer = healthz(
      {
        modConnected: peer !== null,
        modVersion: peer?.modVersion ?? null,
        startedAt: options.startedAt,
        apiEnabled: options.snapshot().state.apiEnabled,
        storageFaults: options.storageFaults?.() ?? [],
        workerFaults: options.workerFaults?.() ?? [],
      },
      { now: new Date(options.now()), requireMod: healthzRequiresMod(url.searchParams) },
    );
    return {
      status: answer.status,
      headers: { ...exchange.headers, ...answer.headers },
      body: req.method === 'HEAD' ? null : Buffer.from(JSON.stringify(answer.body)),
    };
  }

  /** GET /openapi.json: generated on the first request for it, so start-up does not pay for it. */
  openapi(exchange: Exchange): ApiResponse {
    exchange.label = OPENAPI_PATH;
    const headers = { ...exchange.headers, 'content-type': 'application/json; charset=utf-8' };
    return {
      status: 200,
      headers: { ...headers, 'cache-control': 'public, max-age=300' },
      body: (this.#openapiBody ??= Buffer.from(JSON.stringify(openapiDocument(this.#options.openapi)))),
    };
  }
}

function openapiDocument(source: unknown): unknown {
  return typeof source === 'function' ? (source as () => unknown)() : source;
}
