/**
 * What one admin request learns on its way through the admin plane's stages (admin-pipeline.ts):
 * for the answer, the log line and the audit entry (admin-observers.ts).
 */
import { type BaseExchange } from '../http/exchange.ts';
import { baseHeaders, newRequestId } from '../http/respond.ts';
import type { AdminActor } from './admin-actor.ts';
import type { AnyAdminRoute } from './define-admin-route.ts';
import { PANEL_SECURITY_HEADERS } from './panel/panel-assets.ts';

export interface AdminExchange extends BaseExchange {
  route: AnyAdminRoute | null;
  actor: AdminActor | null;
}

/** `panel`: the panel's security headers on every answer, a browser may be reading any of them. */
export function newAdminExchange(panel: boolean): AdminExchange {
  const requestId = newRequestId();
  return {
    requestId,
    headers: {
      ...baseHeaders(requestId),
      'cache-control': 'no-store',
      ...(panel ? PANEL_SECURITY_HEADERS : {}),
    },
    route: null,
    actor: null,
    errorCode: null,
  };
}
