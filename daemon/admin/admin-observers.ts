/**
 * What watches every admin request once it is answered: the audit log for every state-changing
 * request that got past authentication, whatever its outcome, with its actor (docs/admin.md), and
 * one request log line. Neither ever holds a header: tokens, cookies and Authorization stay out
 * of the logs (a test greps them).
 */
import type { AuditLog } from '../log/audit-log.ts';
import type { Logger } from '../log/log.ts';
import { answered, roundMs } from '../http/observers.ts';
import type { ApiRequest, ApiResponse } from '../http/types.ts';
import type { AdminExchange } from './admin-exchange.ts';
import type { AdminServices } from './services.ts';

/** Appends the audit line of an authenticated write; a failed write is logged, never thrown. */
function auditAdminRequest(
  audit: AuditLog,
  req: ApiRequest,
  exchange: AdminExchange,
  response: ApiResponse,
  log: Logger,
): void {
  if (exchange.actor === null || req.method === 'GET' || req.method === 'HEAD') return;
  void audit
    .append({
      time: new Date().toISOString(),
      request_id: exchange.requestId,
      key_id: null,
      actor: exchange.actor,
      method: req.method,
      route: exchange.route?.path ?? 'unmatched',
      ...answered(req, exchange, response),
    })
    .catch((error: unknown) => log.error('audit log write failed', { error }));
}

/** The request's log line: who, what, how it ended; never a header. */
function logAdminRequest(
  log: Logger,
  req: ApiRequest,
  exchange: AdminExchange,
  response: ApiResponse,
  ms: number,
): void {
  log.info('admin request', {
    request_id: exchange.requestId,
    method: req.method,
    route: exchange.route?.path ?? null,
    actor: exchange.actor,
    client_address: req.remoteAddress || 'admin.sock',
    status: response.status,
    error_code: exchange.errorCode,
    ms: roundMs(ms),
  });
}

/** The admin plane's observers (daemon/http/plane.ts): the audit line, then the log line. */
export function adminObservers(
  services: Pick<AdminServices, 'audit'>,
  log: Logger,
): (req: ApiRequest, exchange: AdminExchange, response: ApiResponse, ms: number) => void {
  return (req, exchange, response, ms) => {
    auditAdminRequest(services.audit, req, exchange, response, log);
    logAdminRequest(log, req, exchange, response, ms);
  };
}
