/** Social links (docs/players.md#players-who-never-joined): link by platform id, unlink by either ref. */
import * as z from 'zod';
import { Identity } from '../../protocol/ops/schemas.ts';
import { defineRoute } from '../http/define-route.ts';
import { asParam, PLATFORM_ID, playerRefParam, socialIdParam } from './params.ts';
import { playerWrite } from './player-writes.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const LinkResult = lazySchema(() => z.object({ player: Identity }).meta({ id: 'SocialLink' }));

export const linkSocial = defineRoute({
  method: 'POST',
  path: '/v1/players/{ref}/social',
  operationId: 'linkSocial',
  summary: 'Link a social account to a player who has joined the server',
  tag: 'Social link',
  scope: 'players:link',
  params: () =>
    z.object({
      // Documented as a platform id only: a social: ref is refused with this message, not a 404.
      ref: asParam(
        playerRefParam.refine(
          (ref) => 'platform_id' in ref,
          'link by platform id; a social: ref is not allowed here',
        ),
        {
          type: 'string',
          pattern: PLATFORM_ID.source,
          description: 'A 17-digit platform id (no social: ref)',
        },
      ),
    }),
  body: () => z.object({ social_id: socialIdParam }).strict().meta({ id: 'LinkRequest' }),
  response: { status: 200, schema: LinkResult },
  cache: { kind: 'no-store' },
  errors: ['conflict', 'precondition_failed', 'server_unavailable', 'gateway_timeout'],
  handler: (ctx) =>
    playerWrite(ctx, ctx.params.ref, 'link', () =>
      ctx.call('players.link', {
        platform_id: (ctx.params.ref as { platform_id: string }).platform_id,
        social_id: ctx.body.social_id,
        actor: ctx.actor,
      }),
    ),
});

export const unlinkSocial = defineRoute({
  method: 'DELETE',
  path: '/v1/players/{ref}/social',
  operationId: 'unlinkSocial',
  summary: 'Unlink the social account (by platform id: idempotent; by social: ref, 404 once unlinked)',
  tag: 'Social link',
  scope: 'players:link',
  params: () => z.object({ ref: playerRefParam }),
  response: { status: 200, schema: LinkResult },
  cache: { kind: 'no-store' },
  errors: ['precondition_failed', 'server_unavailable', 'gateway_timeout'],
  handler: (ctx) =>
    playerWrite(ctx, ctx.params.ref, 'unlink', () =>
      ctx.call('players.unlink', { ref: ctx.params.ref, actor: ctx.actor }),
    ),
});

export const SOCIAL_ROUTES = [linkSocial, unlinkSocial];
