/**
 * Strong ETags, If-None-Match and Cache-Control (docs/pipeline.md): a
 * cacheable read answers 304 with no body while its representation is unchanged.
 */
import { createHash } from 'node:crypto';
import type { CachePolicy } from './define-route.ts';

/** A strong validator: the representation's SHA-256, so equal bytes always give equal tags. */
export function strongEtag(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison, so `W/"x"` matches `"x"`; `*`
 * matches any current representation.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === opaque);
}

export function cacheControl(policy: CachePolicy): string {
  return policy.kind === 'no-store' ? 'private, no-store' : `private, max-age=${policy.maxAgeSec}`;
}

/**
 * RFC 9110 §13.1.1: If-Match uses the strong comparison, so a weak tag never matches; `*`
 * matches any current representation.
 */
export function ifMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => !tag.startsWith('W/') && tag === etag);
}
