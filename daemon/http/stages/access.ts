/**
 * Access stages, in pipeline order (docs/pipeline.md): API enabled → key → premium (and plan
 * feature) → IP allowlist → scope. Each takes what it needs and throws an ApiError or returns.
 * `authorizeKey` runs the four after the switch in that order, for a new request and for an open
 * stream checked again (stream-access.ts) alike.
 */
import type { AnyRoute } from '../define-route.ts';
import { isIpAllowed } from '../../store/allow-ip.ts';
import type { ApiKeyRecord } from '../../store/keys-file.ts';
import { hasFeature, isPremiumActive } from '../../store/state.ts';
import type { Snapshot } from '../../store/data-dir.ts';
import { ApiError } from '../api-error.ts';
import type { ApiRequest } from '../types.ts';
import type { VerifiedKeys } from '../verified-keys.ts';

/** What the key stages read from a request. */
export interface Credentials {
  authorization: string | undefined;
  /** The client address, after trusted proxies. */
  remoteAddress: string;
}

/** The request's credentials: its Authorization header and the address it came from. */
export function credentialsOf(req: ApiRequest): Credentials {
  return { authorization: req.headers['authorization'], remoteAddress: req.remoteAddress };
}

/**
 * Key → premium (and plan feature) → IP allowlist → scope; `onKey` runs as soon as the key is
 * known (the pipeline shows the key's own rate limit on a 403 after it).
 */
export function authorizeKey(
  snapshot: Snapshot,
  route: AnyRoute,
  credentials: Credentials,
  now: Date,
  keys: VerifiedKeys,
  onKey: (key: ApiKeyRecord) => void = () => undefined,
): ApiKeyRecord {
  const key = authenticate(snapshot, credentials.authorization, now, keys);
  onKey(key);
  requirePremium(snapshot, route, now);
  checkIpAllowlist(key, credentials.remoteAddress);
  requireScope(key, route);
  return key;
}

/** The instant a grant that holds now lapses by time alone (the key's expiry, the plan's end). */
export function accessLapsesAt(snapshot: Snapshot, key: ApiKeyRecord): number | null {
  const instants = [key.expiresAt, snapshot.state.plan.until].filter((at): at is Date => at !== null);
  return instants.length === 0 ? null : Math.min(...instants.map((at) => at.getTime()));
}

/** docs/pipeline.md#why-this-order: a disabled API answers 404 on every /v1 path, existing or not. */
export function requireApiEnabled(snapshot: Snapshot): void {
  if (!snapshot.state.apiEnabled) throw new ApiError('not_found');
}

const BEARER = /^Bearer +(\S+) *$/i;

/** docs/errors.md#the-codes, unauthorized: `Authorization: Bearer <key>`, else 401. */
export function authenticate(
  snapshot: Snapshot,
  authorization: string | undefined,
  now: Date,
  keys: VerifiedKeys,
): ApiKeyRecord {
  const challenge = { 'www-authenticate': 'Bearer realm="modgate"' };
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  if (!match) {
    throw new ApiError('unauthorized', 'Send the API key as "Authorization: Bearer <key>".', {
      headers: challenge,
    });
  }
  const verdict = keys.verify(snapshot.keysById, match[1] as string, now);
  if (!verdict.ok) {
    const message =
      verdict.reason === 'expired'
        ? 'This API key has expired.'
        : verdict.reason === 'revoked'
          ? 'This API key has been revoked.'
          : 'The API key is not valid.';
    throw new ApiError('unauthorized', message, { headers: challenge });
  }
  return verdict.record;
}

/** docs/errors.md#the-codes, premium_required: plan first, then the route's feature. */
export function requirePremium(snapshot: Snapshot, route: AnyRoute, now: Date): void {
  const plan = snapshot.state.plan;
  if (!isPremiumActive(plan, now)) throw new ApiError('premium_required');
  if (route.feature && !hasFeature(plan, route.feature, now)) {
    throw new ApiError(
      'premium_required',
      `This server's plan does not include the ${route.feature} feature.`,
    );
  }
}

/** docs/data-dir.md#keysjson, `allow_ips`: IPv4 and IPv6 addresses and CIDR ranges. */
export function checkIpAllowlist(key: ApiKeyRecord, remoteAddress: string): void {
  if (!isIpAllowed(key.allowIps, remoteAddress)) throw new ApiError('ip_not_allowed');
}

/** docs/errors.md#the-codes, insufficient_scope: 403 with details.missing_scope. */
export function requireScope(key: ApiKeyRecord, route: AnyRoute): void {
  if (key.scopes.includes(route.scope)) return;
  throw new ApiError('insufficient_scope', `This endpoint needs the ${route.scope} scope.`, {
    details: { missing_scope: route.scope },
  });
}
