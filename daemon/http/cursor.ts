/**
 * Opaque, authenticated pagination cursors. The game side pages by
 * keyset and hands back a position (`next`); the daemon wraps it in a token that binds the API
 * key, the route and the filters, with an HMAC under a key derived from the daemon's identity so
 * tokens survive restarts. A forged, altered or foreign cursor is a 400: tampering can only move
 * within the caller's own results, as the spec promises.
 *
 * Token: base64url(JSON payload) "." base64url(HMAC-SHA256(key, payload)[0..16]).
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { ApiError } from './api-error.ts';

export interface CursorScope {
  keyId: string;
  /** The route's operationId. */
  route: string;
  /** The query's filters (everything but `cursor` and `limit`), which a cursor may not change. */
  filters: Record<string, unknown>;
}

interface Payload {
  v: 1;
  k: string;
  r: string;
  f: string;
  p: string;
}

const TAG_BYTES = 16;

export class CursorCodec {
  readonly #key: Buffer;

  constructor(daemonSecret: Uint8Array) {
    this.#key = Buffer.from(hkdfSync('sha256', daemonSecret, Buffer.alloc(0), 'modgate/1 cursor', 32));
  }

  /** Wraps the game side's position for the next page. */
  encode(scope: CursorScope, position: string): string {
    const payload: Payload = {
      v: 1,
      k: scope.keyId,
      r: scope.route,
      f: filtersHash(scope.filters),
      p: position,
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.#tag(body).toString('base64url')}`;
  }

  /** The position inside a token, or a 400 if the token is not one this daemon issued for this scope. */
  decode(scope: CursorScope, token: string): string {
    const [body = '', tag = '', extra] = token.split('.');
    if (extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(tag))
      throw invalid();
    const given = Buffer.from(tag, 'base64url');
    const expected = this.#tag(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw invalid();
    }
    if (payload.v !== 1 || typeof payload.p !== 'string') throw invalid();
    if (payload.k !== scope.keyId || payload.r !== scope.route || payload.f !== filtersHash(scope.filters)) {
      throw new ApiError(
        'validation_error',
        'This cursor belongs to another query; start again without it.',
        {
          details: {
            errors: [{ in: 'query', path: 'cursor', message: 'issued for another key, route or filter' }],
          },
        },
      );
    }
    return payload.p;
  }

  #tag(body: string): Buffer {
    return createHmac('sha256', this.#key).update(body).digest().subarray(0, TAG_BYTES);
  }
}

function invalid(): ApiError {
  return new ApiError('validation_error', 'The cursor is not valid; pass next_cursor back unchanged.', {
    details: { errors: [{ in: 'query', path: 'cursor', message: 'not a cursor this server issued' }] },
  });
}

/** Order-independent digest of the filters (keys sorted, undefined dropped). */
function filtersHash(filters: Record<string, unknown>): string {
  const canonical = Object.keys(filters)
    .filter((name) => filters[name] !== undefined)
    .sort()
    .map((name) => [name, filters[name]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 22);
}
