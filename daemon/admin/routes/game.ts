/**
 * The game on the admin API (docs/admin.md, "Game routes"): every /v1 game operation again under
 * `/admin/v1/game/…`, generated from the /v1 route table, so the panel reaches the game with its
 * session and no API key. Each keeps its /v1 route's path, params, query, body, answer and
 * handler: validation, caps, idempotency, the mod call and its errors are that route's. What
 * differs is the caller: the admin, held to its role by the route's scope, audited like every
 * admin write, and named to the game with source `panel` (PROTOCOL §6.6).
 */
import type { z } from 'zod';
import type { AnyRoute } from '../../http/define-route.ts';
import type { ValidInput } from '../../http/stages/input.ts';
import { ROUTES } from '../../routes/index.ts';
import { actorId, type AdminActor } from '../admin-actor.ts';
import { ADMIN_PREFIX, type AnyAdminRoute, defineAdminRoute } from '../define-admin-route.ts';

/** Where the game routes live: `/admin/v1/game/players/{ref}/ban` is `/v1/players/{ref}/ban`. */
export const GAME_PREFIX = `${ADMIN_PREFIX}/game`;

/**
 * /v1 routes the admin API has its own of: the event stream (`/admin/v1/events`, every type
 * unscoped) and the webhooks (`/admin/v1/webhooks`, with the operator's address rules).
 */
const NOT_GAME = ['/v1/events', '/v1/webhooks'];

function isGameRoute(route: AnyRoute): boolean {
  return !NOT_GAME.some((prefix) => route.path === prefix || route.path.startsWith(`${prefix}/`));
}

/** The admin as the game is told of it: its name, no player identity, source `panel`. */
export function panelActor(actor: AdminActor) {
  const name = actor.kind === 'local' ? `admin (uid ${actor.uid})` : actor.name;
  return { key_id: actorId(actor), name, platform_id: null, social_id: null, source: 'panel' as const };
}

/**
 * A schema field of the /v1 declaration as a thunk, or nothing when the route has none: reading
 * the descriptor, not the field, so no schema is built before the route's first request.
 */
function declared(route: object, field: 'params' | 'query' | 'body'): (() => z.ZodType) | undefined {
  if (!Object.getOwnPropertyDescriptor(route, field)) return undefined;
  return () => (route as Record<typeof field, z.ZodType>)[field];
}

function gameRouteOf(route: AnyRoute): AnyAdminRoute {
  const name = route.operationId;
  return defineAdminRoute({
    method: route.method,
    path: `${GAME_PREFIX}${route.path.slice('/v1'.length)}`,
    operationId: `game${name.charAt(0).toUpperCase()}${name.slice(1)}`,
    summary: route.summary,
    description: `${route.description ?? route.summary}. The /v1 operation ${route.method} ${route.path}, for the panel (docs/admin.md, "Game routes").`,
    tag: `Game: ${route.tag}`,
    params: declared(route, 'params'),
    query: declared(route, 'query'),
    body: declared(route, 'body'),
    response: { status: route.response.status, schema: () => route.response.schema },
    errors: [...route.errors, 'server_unavailable', 'gateway_timeout', 'daemon_not_running'],
    access: { kind: 'game', scope: route.scope },
    handler: (ctx) =>
      ctx.admin.game.runGame(route, {
        input: { params: ctx.params, query: ctx.query, body: ctx.body } as ValidInput,
        callerId: `admin:${actorId(ctx.actor)}`,
        actor: panelActor(ctx.actor),
        headers: ctx.headers,
        requestId: ctx.requestId,
        opIdBase: ctx.opIdBase,
      }) as Promise<never>,
  });
}

/** Every game route, in the /v1 table's order. */
export const gameRoutes: readonly AnyAdminRoute[] = ROUTES.filter(isGameRoute).map(gameRouteOf);
