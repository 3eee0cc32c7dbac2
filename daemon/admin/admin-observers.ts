/**
 * What watches every admin request once it is answered: the audit log for every state-changing
 * request that got past authentication, whatever its outcome, with its actor (docs/admin.md), and
 * one request log line. Neither ever holds a header: tokens, cookies and Authorization stay out
 * of the logs (a test greps them).
 */
import type { AuditLog } from '../log/audit-log.ts';
import type { Logger } from '../log/log.ts';
import type { ApiRequest, ApiResponse } from '../http/types.ts';
import type { AdminExchange } from './admin-pipeline.ts';

/** Appends the audit line of an authenticated write; a failed write is logged, never thrown. */
export function auditAdminRequest(
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
      target: req.url.split('?')[0] ?? req.url,
      status: response.status,
      outcome: response.status === 499 ? 'aborted' : response.status < 400 ? 'ok' : 'error',
      error_code: exchange.errorCode,
      replayed: response.headers['idempotent-replayed'] === 'true',
    })
    .catch((error: unknown) => log.error('audit log write failed', { error }));
}

/** The request's log line: who, what, how it ended; never a header. */
export function logAdminRequest(
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
    ms: Math.round(ms * 10) / 10,
  });
}
