/**
 * What the pipeline learns about one request on its way through the stages (pipeline.ts): its
 * id and the headers every answer carries, its route and key once known, the error code it was
 * answered with. The answer (answers.ts) and the observers (observers.ts) read it afterwards.
 * Each plane's exchange (this one for /v1, admin-exchange.ts for /admin/v1) extends the part
 * the one skeleton (pipeline-handle.ts) and the envelope (answers.ts) read.
 */
import type { AnyRoute } from './define-route.ts';
import { baseHeaders, newRequestId } from './respond.ts';

/** What every plane's exchange carries: its id, the headers every answer carries, its error code. */
export interface BaseExchange {
  requestId: string;
  headers: Record<string, string>;
  errorCode: string | null;
}

export interface Exchange extends BaseExchange {
  route: AnyRoute | null;
  keyId: string | null;
  /** Logged at debug only (health probes). */
  quiet: boolean;
  /** The metrics route label of a path outside the route table (/healthz, /openapi.json). */
  label: string | null;
}

export function newExchange(): Exchange {
  const requestId = newRequestId();
  return {
    requestId,
    headers: baseHeaders(requestId),
    route: null,
    keyId: null,
    errorCode: null,
    quiet: false,
    label: null,
  };
}
