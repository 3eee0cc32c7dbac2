/**
 * Why a delivery attempt failed, as one of a fixed set of classes: what the outbox journal, the
 * deliveries API and `webhooks deliveries` show. Never the remote's own words (its body, error
 * text or headers): a key that can aim a webhook must not read the host's network through it.
 * The set is an enum in the API schema (docs/events.md, "Delivery attempts: the error classes").
 */

export const DELIVERY_FAILURES = [
  /** No complete answer within the timeout (connect, TLS or the answer itself). */
  'timeout',
  /** The connection was refused. */
  'refused',
  /** The name did not resolve. */
  'dns_error',
  /** The TLS handshake failed (certificate, protocol). */
  'tls_error',
  /** The address is not one this endpoint may reach; nothing was sent. */
  'blocked_address',
  /** The receiver answered a status outside 2xx and 3xx. */
  'http_status',
  /** The receiver answered 3xx; redirects are not followed. */
  'redirect',
  /** The connection broke before a complete answer. */
  'reset',
  /** The network or host is unreachable. */
  'unreachable',
  /** Another network error. */
  'network_error',
  /** The URL is no longer acceptable (a hand-edited webhooks.json); nothing was sent. */
  'invalid_url',
  /** The daemon stopped during the attempt; it is made again after the restart. */
  'cancelled',
  /** Retention dropped events before they were delivered (a `gap` line). */
  'events_dropped',
  /** A line written by an older daemon, whose text is not shown. */
  'other',
] as const;

export type DeliveryFailure = (typeof DELIVERY_FAILURES)[number];

const BY_CODE: Readonly<Record<string, DeliveryFailure>> = {
  EBLOCKEDADDRESS: 'blocked_address',
  ENOTFOUND: 'dns_error',
  EAI_AGAIN: 'dns_error',
  EAI_FAIL: 'dns_error',
  EAI_NODATA: 'dns_error',
  EAI_NONAME: 'dns_error',
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EPROTO: 'tls_error',
};

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** The class of a socket, DNS or TLS error raised by node:http(s). */
export function failureOf(error: Error): DeliveryFailure {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const known = BY_CODE[code];
  if (known) return known;
  if (TLS_CODE.test(code)) return 'tls_error';
  return 'network_error';
}

/** A journal line's `error` as shown: a class, whatever an older daemon wrote there. */
export function shownFailure(error: string | null, outcome: string): DeliveryFailure | null {
  if (error === null) return null;
  if ((DELIVERY_FAILURES as readonly string[]).includes(error)) return error as DeliveryFailure;
  return outcome === 'gap' ? 'events_dropped' : 'other';
}
