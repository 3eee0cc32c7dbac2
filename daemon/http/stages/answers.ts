/**
 * Rendering answers (docs/pipeline.md, the last stages): a handler's result serialized as JSON
 * with its Cache-Control and strong ETag, and the 304 an If-None-Match earns; an ApiError as the
 * spec's envelope; a stored idempotent outcome replayed; nothing for a client already gone.
 */
import type { Logger } from '../../log/log.ts';
import { ApiError } from '../api-error.ts';
import type { AnyRoute } from '../define-route.ts';
import type { BaseExchange, Exchange } from '../exchange.ts';
import type { Representation, Representations } from '../representations.ts';
import { errorCodeOf, errorResponse, JSON_CONTENT_TYPE, withRequestId } from '../respond.ts';
import { cacheControl, ifNoneMatchHits, strongEtag } from '../caching.ts';
import type { ApiRequest, ApiResponse, ClientGone } from '../types.ts';

export class Answers {
  readonly #representations: Representations;
  readonly #checkResponses: boolean;

  /**
   * `checkResponses`: check every result against its route's schema (a failure is a daemon bug:
   * 500, logged); see PipelineOptions.checkResponses.
   */
  constructor(representations: Representations, checkResponses: boolean) {
    this.#representations = representations;
    this.#checkResponses = checkResponses;
  }

  /** Serialize, then ETag / 304; a frozen (read-cache) result is serialized and hashed once. */
  respond(route: AnyRoute, result: unknown, req: ApiRequest, headers: Record<string, string>): ApiResponse {
    if (route.response.status === 204) {
      if (this.#checkResponses) route.response.schema.parse(result);
      return { status: 204, headers, body: null };
    }
    return this.answer(
      route,
      this.#representations.represent(route, result, () => this.#represent(route, result)),
      req,
      headers,
    );
  }

  /** The response for a representation: Cache-Control, and the ETag with its 304. */
  answer(
    route: AnyRoute,
    { body, etag }: Representation,
    req: ApiRequest,
    headers: Record<string, string>,
  ): ApiResponse {
    const out: Record<string, string> = { ...headers, 'cache-control': cacheControl(route.cache) };
    if (etag !== null && ifNoneMatchHits(req.headers['if-none-match'], etag)) {
      out['etag'] = etag;
      return { status: 304, headers: out, body: null };
    }
    out['content-type'] = JSON_CONTENT_TYPE;
    if (etag !== null) out['etag'] = etag;
    return { status: route.response.status, headers: out, body };
  }

  #represent(route: AnyRoute, result: unknown): Representation {
    const value = this.#checkResponses ? route.response.schema.parse(result) : result;
    const text = JSON.stringify(value);
    if (route.cache.kind !== 'private') return { body: text, etag: null };
    const body = Buffer.from(text);
    return { body, etag: strongEtag(body) };
  }
}

/**
 * The one place an ApiError becomes a response: the envelope, with the code remembered for the
 * audit log. The handler's errors pass here inside the idempotency section (so a 4xx can be
 * stored for replay), everything else from the outer catch.
 */
export function failure(error: ApiError, exchange: BaseExchange): ApiResponse {
  exchange.errorCode = error.code;
  return errorResponse(error, exchange.requestId, exchange.headers);
}

/** A stored outcome for this request: its headers and, in an error, its own request id. */
export function replayed(stored: ApiResponse, exchange: Exchange): ApiResponse {
  exchange.errorCode = errorCodeOf(stored);
  const response = withRequestId(stored, exchange.requestId);
  return { ...response, headers: { ...exchange.headers, ...response.headers } };
}

/**
 * The client left before its request was read (499, logged and audited as such) or its body
 * timed out (408, already answered by the listener). Nothing is written back.
 */
export function gone(thrown: ClientGone): ApiResponse {
  return { status: thrown.status, headers: {}, body: null };
}

/** Anything that is not an ApiError is a bug: logged whole, answered with a bare 500. */
export function asApiError(thrown: unknown, exchange: BaseExchange, log: Logger): ApiError {
  if (thrown instanceof ApiError) return thrown;
  log.error('unhandled error', { request_id: exchange.requestId, error: thrown });
  return new ApiError('internal');
}
