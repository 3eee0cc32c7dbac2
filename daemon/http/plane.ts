/**
 * The one request skeleton both APIs run (docs/pipeline.md; docs/admin.md, "How a request is
 * handled"). A plane (/v1, or one admin listener) brings its exchange, its ordered stages and its
 * observers; `handleOf` makes the exchange, runs the stages, turns whatever they threw into the
 * envelope in this one place, and tells the observers, whatever the answer.
 */
import type { Logger } from '../log/log.ts';
import { asApiError, failure, gone } from './stages/answers.ts';
import type { BaseExchange } from './exchange.ts';
import { type ApiRequest, type ApiResponse, ClientGone } from './types.ts';

export interface Plane<X extends BaseExchange> {
  /** A new request's exchange: its id and the headers every answer carries. */
  exchange(): X;
  /** The plane's stages in their order: each returns the answer or throws. */
  run(req: ApiRequest, exchange: X): Promise<ApiResponse>;
  /** Watches the answered request, `ms` after it arrived; never changes the answer. */
  observe(req: ApiRequest, exchange: X, response: ApiResponse, ms: number): void;
  /** Where a thrown non-ApiError (a bug) is logged whole before it is answered 500. */
  log: Logger;
}

/** The plane as `handle(request) → response`: everything built once, nothing per request. */
export function handleOf<X extends BaseExchange>(plane: Plane<X>): (req: ApiRequest) => Promise<ApiResponse> {
  const { log } = plane;
  return async function handle(req: ApiRequest): Promise<ApiResponse> {
    const started = performance.now();
    const exchange = plane.exchange();
    let response: ApiResponse;
    try {
      response = await plane.run(req, exchange);
    } catch (thrown) {
      response =
        thrown instanceof ClientGone ? gone(thrown) : failure(asApiError(thrown, exchange, log), exchange);
    }
    plane.observe(req, exchange, response, performance.now() - started);
    return response;
  };
}
