/**
 * What watches every request once it is answered (docs/pipeline.md): the audit log for an
 * authenticated write, the request log line, and the request's metrics (docs/metrics.md). They
 * run after the answer is built, whatever it is, and never change it. The admin API's observers
 * (daemon/admin/admin-observers.ts) write their lines with the same parts (`answered`, `roundMs`).
 */
import type { AuditEntry, AuditLog } from '../log/audit-log.ts';
import type { Logger } from '../log/log.ts';
import { type DaemonMetrics, UNMATCHED_ROUTE } from '../metrics/metrics.ts';
import type { BaseExchange, Exchange } from './exchange.ts';
import type { ApiRequest, ApiResponse } from './types.ts';

export interface ObserverOptions {
  log: Logger;
  metrics: DaemonMetrics;
  /** Where authenticated writes are recorded (the data dir's audit log); none without it. */
  audit: AuditLog | undefined;
  now: () => number;
}

export class RequestObservers {
  readonly #log: Logger;
  readonly #metrics: DaemonMetrics;
  readonly #audit: AuditLog | undefined;
  readonly #now: () => number;

  constructor(options: ObserverOptions) {
    this.#log = options.log;
    this.#metrics = options.metrics;
    this.#audit = options.audit;
    this.#now = options.now;
  }

  /** The answered request, `ms` after it arrived: audited, logged, counted. */
  observe(req: ApiRequest, exchange: Exchange, response: ApiResponse, ms: number): void {
    this.#audited(req, exchange, response);
    const log = this.#log;
    (exchange.quiet ? log.debug : log.info)('request', {
      request_id: exchange.requestId,
      method: req.method,
      route: exchange.route?.path ?? null,
      key_id: exchange.keyId,
      client_address: req.remoteAddress,
      status: response.status,
      error_code: exchange.errorCode,
      ms: roundMs(ms),
    });
    this.#count(exchange, req.method, response, ms / 1000);
  }

  /** An authenticated write, whatever its outcome, goes to the audit log. */
  #audited(req: ApiRequest, exchange: Exchange, response: ApiResponse): void {
    if (!this.#audit || exchange.keyId === null || exchange.route === null || exchange.route.method === 'GET')
      return;
    void this.#audit
      .append({
        time: new Date(this.#now()).toISOString(),
        request_id: exchange.requestId,
        key_id: exchange.keyId,
        method: req.method,
        route: exchange.route.path,
        ...answered(req, exchange, response),
      })
      .catch((error: unknown) => {
        this.#metrics.writeFailed('audit');
        this.#log.error('audit log write failed', { error });
      });
  }

  /** The request's metrics: its route template, or a fixed label outside the route table. */
  #count(exchange: Exchange, method: string, response: ApiResponse, seconds: number): void {
    this.#metrics.httpRequest(
      exchange.label ?? exchange.route?.path ?? UNMATCHED_ROUTE,
      method,
      response.status,
      seconds,
    );
    if (response.headers['idempotent-replayed'] === 'true') this.#metrics.idempotency('replay');
    else if (exchange.errorCode === 'idempotency_conflict') this.#metrics.idempotency('conflict');
  }
}

/** The close of every audit line, both APIs': the target, and how the request was answered. */
export function answered(
  req: ApiRequest,
  exchange: BaseExchange,
  response: ApiResponse,
): Pick<AuditEntry, 'target' | 'status' | 'outcome' | 'error_code' | 'replayed'> {
  return {
    target: req.url.split('?')[0] ?? req.url,
    status: response.status,
    outcome: response.status === 499 ? 'aborted' : response.status < 400 ? 'ok' : 'error',
    error_code: exchange.errorCode,
    replayed: response.headers['idempotent-replayed'] === 'true',
  };
}

/** A request's time in the log line: milliseconds to one decimal. */
export function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
