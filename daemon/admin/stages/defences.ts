/**
 * The admin TCP listener's defences against a browser used as a weapon (docs/admin.md, "Threat
 * model"). A page on any site can make the operator's browser send requests to a loopback port:
 *
 * - DNS rebinding: a name the attacker controls resolves to 127.0.0.1, so the page's own origin
 *   reaches the admin port and may read the answers. The `Host` header still carries the
 *   attacker's name: a request whose Host is not this listener's address (`localhost` too on
 *   loopback, or a configured `[admin] hostnames` entry) is 421 `misdirected_request`.
 * - Cross-site requests (CSRF): a form or fetch from another site, with the panel's cookie or a
 *   browser-held credential. A state-changing request whose `Sec-Fetch-Site` says it comes from
 *   another site, or whose `Origin` is not this listener's own, is 403 `cross_origin_request`
 *   (the hole Caddy's admin endpoint had, CVE-2026-27589: it trusted requests without looking at
 *   their origin). A request with neither header (curl, the CLI, a provider's backend) passes.
 * - CORS: none. No Access-Control-* header is ever sent, and a preflight (OPTIONS) is refused,
 *   so a browser never lets another origin read an answer or send a non-simple request.
 *
 * The JSON-only rule for bodies (a `text/plain` form post carrying JSON is the classic attack on
 * loopback admin ports) is the input stage's 415, shared with /v1.
 */
import { formatHostPort, type HostPort, isLoopbackHost } from '../../host-port.ts';
import { ApiError } from '../../http/api-error.ts';
import type { ApiRequest } from '../../http/types.ts';

export interface HostRule {
  /** Lower-case `host:port` forms (and a bare host for the scheme's default port) allowed. */
  readonly allowed: ReadonlySet<string>;
}

/**
 * The Host values a listener on `listen` answers to: its address as written (`127.0.0.1:8790`,
 * `[::1]:8790`), `localhost:PORT` on loopback, and each configured name, with or without the
 * port (without it only when the port is the scheme's default).
 */
export function hostRule(listen: HostPort, hostnames: readonly string[], tls: boolean): HostRule {
  const names = [listen.host, ...hostnames];
  if (isLoopbackHost(listen.host)) names.push('localhost', '127.0.0.1', '::1');
  const allowed = new Set<string>();
  const defaultPort = tls ? 443 : 80;
  for (const name of names) {
    const address = formatHostPort({ host: name.toLowerCase(), port: listen.port });
    allowed.add(address);
    if (listen.port === defaultPort) allowed.add(address.slice(0, address.lastIndexOf(':')));
  }
  return { allowed };
}

/** An absolute-form target's `scheme://` and authority (RFC 9112 §3.2.2), up to the path. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i;

/**
 * 421 unless the request's Host is one this listener answers to (DNS rebinding). An
 * absolute-form target (`GET http://host/…`) names its host too, and RFC 9112 §3.2.2 makes that
 * authority the one a server goes by: it must pass as well, or a client could name any host
 * there behind a correct Host header.
 */
export function checkHost(req: ApiRequest, rule: HostRule): void {
  const host = req.headers['host']?.toLowerCase();
  const authority = req.url.startsWith('/') ? undefined : ABSOLUTE_FORM.exec(req.url)?.[1]?.toLowerCase();
  const authorityAllowed = authority === undefined || rule.allowed.has(authority);
  if (host !== undefined && rule.allowed.has(host) && authorityAllowed) return;
  throw new ApiError(
    'misdirected_request',
    'This admin listener does not answer to that Host; add the name to [admin] hostnames if it is yours.',
  );
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * 403 for a state-changing request a browser says comes from elsewhere: `Sec-Fetch-Site` other
 * than `same-origin` or `none` (typed by the user), or an `Origin` other than `ownOrigin`
 * (`Origin: null`, sent from sandboxed frames and some redirects, included).
 */
export function checkOrigin(req: ApiRequest, ownOrigin: string): void {
  if (!WRITES.has(req.method)) return;
  const site = req.headers['sec-fetch-site']?.toLowerCase();
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw crossOrigin();
  const origin = req.headers['origin'];
  if (origin !== undefined && origin.toLowerCase() !== ownOrigin.toLowerCase()) throw crossOrigin();
}

/** The origin a browser showing a page of this listener sends: scheme and the (checked) Host. */
export function ownOriginOf(req: ApiRequest, tls: boolean): string {
  return `${tls ? 'https' : 'http'}://${req.headers['host'] ?? ''}`;
}

/** No CORS: a preflight is refused, so no other origin may send a non-simple request. */
export function refusePreflight(req: ApiRequest): void {
  if (req.method === 'OPTIONS') {
    throw new ApiError(
      'cross_origin_request',
      'The admin API does not serve cross-origin requests (no CORS).',
    );
  }
}

function crossOrigin(): ApiError {
  return new ApiError(
    'cross_origin_request',
    "A state-changing admin request must come from the admin listener's own origin.",
  );
}
