/**
 * Response bodies of cached reads, serialized and hashed once per read-cache entry instead of
 * once per request (the read-cache entry is the unit that changes).
 *
 * A read-cache result is `freeze`d when it is stored: a snapshot that nothing mutates, shared by
 * every request inside the max-age window. What a route answers for a frozen value (the JSON
 * bytes and, on a cacheable route, the strong ETag of exactly those bytes) is then kept beside
 * the value and dies with it (a WeakMap: a dropped or expired entry takes its bytes along).
 *
 * A collection envelope carries a cursor bound to the API key, so it is built once per frozen
 * page per key and route (`envelope`), and is itself frozen, so its bytes are kept too. A value
 * that was never frozen (a no-store read, a handler's own object) is serialized every time.
 */
import type { AnyRoute } from './define-route.ts';
import type { ResponseBody } from './types.ts';

export interface Representation {
  /** Bytes on a route with a private cache policy (hashed, and kept while cached); text otherwise. */
  body: ResponseBody;
  /** The strong ETag of `body`, on a route with a private cache policy; null otherwise. */
  etag: string | null;
}

export class Representations {
  readonly #frozen = new WeakSet<object>();
  readonly #bodies = new WeakMap<object, { route: AnyRoute; representation: Representation }>();
  readonly #envelopes = new WeakMap<object, Map<string, object>>();

  /** Marks a value as never changing again; returns it. */
  freeze<T>(value: T): T {
    if (value !== null && typeof value === 'object') this.#frozen.add(value);
    return value;
  }

  isFrozen(value: unknown): boolean {
    return value !== null && typeof value === 'object' && this.#frozen.has(value);
  }

  /**
   * The value built from a frozen `source` for `scope` (a key id and route, say), built once and
   * frozen; for a source that is not frozen, a fresh build every time.
   */
  derive<T extends object>(source: unknown, scope: string, build: () => T): T {
    if (!this.isFrozen(source)) return build();
    let byScope = this.#envelopes.get(source as object);
    if (byScope === undefined) {
      byScope = new Map();
      this.#envelopes.set(source as object, byScope);
    }
    let derived = byScope.get(scope) as T | undefined;
    if (derived === undefined) {
      derived = this.freeze(build());
      byScope.set(scope, derived);
    }
    return derived;
  }

  /** The representation kept for a frozen `value` on `route`, if one was built. */
  kept(route: AnyRoute, value: unknown): Representation | undefined {
    if (!this.isFrozen(value)) return undefined;
    const kept = this.#bodies.get(value as object);
    return kept !== undefined && kept.route === route ? kept.representation : undefined;
  }

  /** What `route` answers for `value`: kept when the value is frozen, else built every time. */
  represent(route: AnyRoute, value: unknown, build: () => Representation): Representation {
    if (!this.isFrozen(value)) return build();
    const kept = this.kept(route, value);
    if (kept !== undefined) return kept;
    const representation = build();
    this.#bodies.set(value as object, { route, representation });
    return representation;
  }
}
