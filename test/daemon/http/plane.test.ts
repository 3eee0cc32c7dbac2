/**
 * The one request skeleton (daemon/http/plane.ts; docs/pipeline.md, "The request pipeline"), with a
 * plane of one stage: what it answers for what the stage returns or throws, and what it tells the
 * observers. /v1 and the admin API are its planes; their own tests cover their stages.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../daemon/http/api-error.ts';
import { type BaseExchange } from '../../../daemon/http/exchange.ts';
import { handleOf } from '../../../daemon/http/plane.ts';
import { baseHeaders, json, newRequestId } from '../../../daemon/http/respond.ts';
import {
  type ApiRequest,
  type ApiResponse,
  bodyText,
  ClientGone,
  makeRequest,
} from '../../../daemon/http/types.ts';
import type { LogFields, Logger } from '../../../daemon/log/log.ts';

interface Observed {
  exchange: BaseExchange;
  response: ApiResponse;
}

/** A plane whose one stage does what `stage` says, with what the skeleton logs and tells kept. */
function planeOf(stage: (req: ApiRequest, exchange: BaseExchange) => Promise<ApiResponse>) {
  const observed: Observed[] = [];
  const errors: Array<{ message: string; fields: LogFields | undefined }> = [];
  const ignore = () => {};
  const log: Logger = {
    debug: ignore,
    info: ignore,
    warn: ignore,
    error: (message, fields) => errors.push({ message, fields }),
  };
  const handle = handleOf<BaseExchange>({
    exchange: () => {
      const requestId = newRequestId();
      return { requestId, headers: baseHeaders(requestId), errorCode: null };
    },
    run: stage,
    observe: (_req, exchange, response) => observed.push({ exchange, response }),
    log,
  });
  return { handle, observed, errors };
}

const request = makeRequest({ url: '/v1/anything' });

describe('the request skeleton both APIs run (handleOf)', () => {
  it('answers what the stages return and tells the observers once', async () => {
    const { handle, observed } = planeOf(async (_req, exchange) => json(200, { ok: true }, exchange.headers));
    const response = await handle(request);
    expect([response.status, bodyText(response.body!)]).toEqual([200, '{"ok":true}']);
    expect(observed).toEqual([{ exchange: expect.objectContaining({ errorCode: null }), response }]);
  });

  it('answers a thrown ApiError with the envelope carrying the exchange’s request id and headers', async () => {
    const { handle, observed } = planeOf(async () => {
      throw new ApiError('not_found', 'No such thing.');
    });
    const response = await handle(request);
    const { requestId } = observed[0]!.exchange;
    expect(response.status).toBe(404);
    expect(response.headers['x-request-id']).toBe(requestId);
    expect(JSON.parse(bodyText(response.body!))).toEqual({
      error: { code: 'not_found', message: 'No such thing.', request_id: requestId },
    });
    expect(observed[0]!.exchange.errorCode).toBe('not_found');
  });

  it('answers anything else thrown with a bare 500 internal and logs it whole', async () => {
    const bug = new TypeError('a daemon bug');
    const { handle, observed, errors } = planeOf(async () => {
      throw bug;
    });
    const response = await handle(request);
    expect([response.status, observed[0]!.exchange.errorCode]).toEqual([500, 'internal']);
    expect(errors).toEqual([
      { message: 'unhandled error', fields: { request_id: observed[0]!.exchange.requestId, error: bug } },
    ]);
  });

  it('sends nothing for a client already gone, and still tells the observers', async () => {
    const { handle, observed } = planeOf(async () => {
      throw new ClientGone('aborted');
    });
    const response = await handle(request);
    expect(response).toEqual({ status: 499, headers: {}, body: null });
    expect(observed.map((seen) => seen.response.status)).toEqual([499]);
  });
});
