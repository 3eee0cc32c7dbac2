/**
 * Matches a method and path to a route. Static segments win over `{param}` segments position by
 * position, so `/v1/players/online` beats `/v1/players/{ref}` (docs/pipeline.md: static
 * segments beat {param}) whatever order the table lists them in.
 */
import type { AnyRoute } from './define-route.ts';

/** What the router reads of a route: /v1's routes and the admin API's alike. */
export interface Routable {
  method: string;
  path: string;
}

export interface RouteMatch<R extends Routable = AnyRoute> {
  route: R;
  params: Record<string, string>;
}

interface CompiledRoute<R extends Routable = AnyRoute> {
  route: R;
  segments: Array<{ static: string } | { param: string }>;
}

export class Router<R extends Routable = AnyRoute> {
  readonly #byMethod = new Map<string, CompiledRoute<R>[]>();

  constructor(routes: readonly R[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const compiled = compile(route);
      const shape = `${route.method} ${compiled.segments.map((s) => ('static' in s ? s.static : '{}')).join('/')}`;
      if (seen.has(shape)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      seen.add(shape);
      const list = this.#byMethod.get(route.method) ?? [];
      list.push(compiled);
      this.#byMethod.set(route.method, list);
    }
    for (const list of this.#byMethod.values()) list.sort(bySpecificity);
  }

  match(method: string, path: string): RouteMatch<R> | null {
    const candidates = this.#byMethod.get(method.toUpperCase());
    if (!candidates) return null;
    const parts = splitPath(path);
    if (parts === null) return null;
    for (const candidate of candidates) {
      const params = matchSegments(candidate, parts);
      if (params) return { route: candidate.route, params };
    }
    return null;
  }
}

function compile<R extends Routable>(route: R): CompiledRoute<R> {
  const segments = route.path
    .split('/')
    .slice(1)
    .map((part) => {
      const param = /^\{([a-z_]+)\}$/.exec(part);
      return param ? { param: param[1] as string } : { static: part };
    });
  return { route, segments };
}

/** Splits and percent-decodes a path; null when a segment does not decode. */
function splitPath(path: string): string[] | null {
  const parts = path.split('/');
  parts.shift();
  try {
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      if (part.includes('%')) parts[i] = decodeURIComponent(part);
    }
    return parts;
  } catch {
    return null;
  }
}

function matchSegments(candidate: CompiledRoute<Routable>, parts: string[]): Record<string, string> | null {
  if (candidate.segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = candidate.segments[i] as CompiledRoute<Routable>['segments'][number];
    const part = parts[i] as string;
    if ('static' in segment) {
      if (segment.static !== part) return null;
    } else {
      if (part === '') return null;
      params[segment.param] = part;
    }
  }
  return params;
}

/** Static before param at the first position where two routes differ. */
function bySpecificity(a: CompiledRoute<Routable>, b: CompiledRoute<Routable>): number {
  const length = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const aStatic = 'static' in (a.segments[i] as object);
    const bStatic = 'static' in (b.segments[i] as object);
    if (aStatic !== bStatic) return aStatic ? -1 : 1;
  }
  return a.segments.length - b.segments.length;
}
