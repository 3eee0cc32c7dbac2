/**
 * Moderation writes (docs/players.md): ban, unban, mute, unmute. All four are idempotent,
 * attributed to the key, and accept If-Match against GET /v1/players/{ref}/moderation.
 */
import * as z from 'zod';
import { BAN_CAPS, ModerationState, MUTE_CAPS, MUTE_CHANNELS } from '../../protocol/ops/players.ts';
import { defineRoute } from '../http/define-route.ts';
import { playerRefParam } from './params.ts';
import { playerWrite } from './player-writes.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export const DEFAULT_REASON = 'No reason provided';

type Unit = keyof typeof BAN_CAPS;

/**
 * docs/players.md#decisions-where-the-spec-is-silent, ban body (mute: "as ban"): with `permanent: true`, "duration is ignored". Ignored
 * means any value, of any type, or none: the field is dropped before validation, so neither the
 * game nor the idempotency fingerprint ever sees it. `duration_unit` is still checked.
 */
function ignoringDurationWhenPermanent(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  if (!('duration' in body) || (body as { permanent?: unknown }).permanent !== true) return body;
  const { duration: _ignored, ...rest } = body as Record<string, unknown>;
  return rest;
}

/** Fields ban and mute share, and the rules that tie them together. */
function durationBody<U extends readonly [Unit, ...Unit[]]>(units: U, caps: Partial<Record<Unit, number>>) {
  return {
    shape: {
      reason: z
        .string()
        .min(1)
        .max(500)
        .optional()
        .meta({ description: `Default: "${DEFAULT_REASON}"`, default: DEFAULT_REASON }),
      permanent: z
        .boolean()
        .optional()
        .meta({ description: 'Permanent; then duration is ignored, whatever it holds', default: false }),
      duration: z.number().int().positive().optional().describe('Required unless permanent is true'),
      duration_unit: z.enum(units).optional().meta({ description: 'Default: hours', default: 'hours' }),
    },
    refine(body: { permanent?: boolean; duration?: number; duration_unit?: Unit }, ctx: z.RefinementCtx) {
      if (body.permanent === true) return;
      if (body.duration === undefined) {
        ctx.addIssue({ code: 'custom', path: ['duration'], message: 'required unless permanent is true' });
        return;
      }
      const unit = body.duration_unit ?? 'hours';
      const cap = caps[unit] as number;
      if (body.duration > cap) {
        ctx.addIssue({ code: 'custom', path: ['duration'], message: `at most ${cap} ${unit}` });
      }
    },
    /** The same rules in JSON Schema, for /openapi.json: duration unless permanent, per-unit caps. */
    json: {
      if: { properties: { permanent: { const: true } }, required: ['permanent'] },
      else: {
        properties: { duration: { type: 'integer' } },
        required: ['duration'],
        allOf: [
          ...units.map((unit) => ({
            if: { properties: { duration_unit: { const: unit } }, required: ['duration_unit'] },
            then: { properties: { duration: { maximum: caps[unit] } } },
          })),
          // No duration_unit: hours.
          {
            if: { properties: { duration_unit: false } },
            then: { properties: { duration: { maximum: caps.hours } } },
          },
        ],
      },
    },
  };
}

const ban = lazySchema(() => durationBody(['minutes', 'hours', 'days', 'months'], BAN_CAPS));
const BanFields = lazySchema(() =>
  z
    .object({
      ...ban().shape,
      squad_ban: z
        .boolean()
        .optional()
        .meta({ description: "Also ban the player's squad; requires squad_id", default: false }),
      squad_id: z
        .string()
        .regex(/^[1-9][0-9]{0,19}$/, 'a squad id: digits')
        .optional(),
    })
    .strict()
    .superRefine((body, ctx) => {
      ban().refine(body, ctx);
      if (body.squad_ban === true && body.squad_id === undefined) {
        ctx.addIssue({ code: 'custom', path: ['squad_id'], message: 'required when squad_ban is true' });
      }
      if (body.squad_id !== undefined && body.squad_ban !== true) {
        ctx.addIssue({ code: 'custom', path: ['squad_ban'], message: 'must be true when squad_id is given' });
      }
    }),
);
const BanBody = lazySchema(() =>
  z.preprocess(ignoringDurationWhenPermanent, BanFields()).meta({
    id: 'BanRequest',
    allOf: [
      ban().json,
      // squad_ban: true and squad_id go together.
      {
        if: { properties: { squad_ban: { const: true } }, required: ['squad_ban'] },
        then: { properties: { squad_id: { type: 'string' } }, required: ['squad_id'] },
      },
      {
        if: { properties: { squad_id: { type: 'string' } }, required: ['squad_id'] },
        then: { properties: { squad_ban: { const: true } }, required: ['squad_ban'] },
      },
    ],
  }),
);

const mute = lazySchema(() => durationBody(['minutes', 'hours', 'days'], MUTE_CAPS));
const MuteFields = lazySchema(() =>
  z
    .object({
      ...mute().shape,
      channels: z
        .array(z.enum(['Global', 'Local', 'Squad']))
        .min(1)
        .optional()
        .meta({ description: 'Default: all three', default: [...MUTE_CHANNELS] }),
    })
    .strict()
    .superRefine(mute().refine),
);
const MuteBody = lazySchema(() =>
  z.preprocess(ignoringDurationWhenPermanent, MuteFields()).meta({ id: 'MuteRequest', ...mute().json }),
);

const refParams = lazySchema(() => z.object({ ref: playerRefParam }));
const common = {
  tag: 'Moderation',
  params: refParams,
  response: { status: 200 as const, schema: ModerationState },
  cache: { kind: 'no-store' as const },
  errors: ['precondition_failed', 'server_unavailable', 'gateway_timeout'] as const,
};

export const banPlayer = defineRoute({
  ...common,
  method: 'POST',
  path: '/v1/players/{ref}/ban',
  operationId: 'banPlayer',
  summary: 'Ban a player (and optionally their squad); the duration is kept exactly',
  scope: 'players:ban',
  body: BanBody,
  handler: (ctx) =>
    playerWrite(ctx, ctx.params.ref, 'ban', () =>
      ctx.call('players.ban', {
        ref: ctx.params.ref,
        reason: ctx.body.reason ?? DEFAULT_REASON,
        permanent: ctx.body.permanent === true,
        duration: ctx.body.permanent === true ? null : (ctx.body.duration ?? null),
        duration_unit: ctx.body.duration_unit ?? 'hours',
        squad_id: ctx.body.squad_ban === true ? (ctx.body.squad_id ?? null) : null,
        actor: ctx.actor,
      }),
    ),
});

export const unbanPlayer = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/v1/players/{ref}/ban',
  operationId: 'unbanPlayer',
  summary: 'Lift a ban; succeeds when the player is not banned',
  scope: 'players:ban',
  handler: (ctx) =>
    playerWrite(ctx, ctx.params.ref, 'unban', () =>
      ctx.call('players.unban', { ref: ctx.params.ref, actor: ctx.actor }),
    ),
});

export const mutePlayer = defineRoute({
  ...common,
  method: 'POST',
  path: '/v1/players/{ref}/mute',
  operationId: 'mutePlayer',
  summary: 'Mute a player; the game rounds a temporary mute up to whole hours',
  scope: 'players:mute',
  body: MuteBody,
  handler: (ctx) =>
    playerWrite(ctx, ctx.params.ref, 'mute', () =>
      ctx.call('players.mute', {
        ref: ctx.params.ref,
        reason: ctx.body.reason ?? DEFAULT_REASON,
        permanent: ctx.body.permanent === true,
        duration: ctx.body.permanent === true ? null : (ctx.body.duration ?? null),
        duration_unit: ctx.body.duration_unit ?? 'hours',
        channels: ctx.body.channels ?? ['Global', 'Local', 'Squad'],
        actor: ctx.actor,
      }),
    ),
});

export const unmutePlayer = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/v1/players/{ref}/mute',
  operationId: 'unmutePlayer',
  summary: 'Lift a mute; succeeds when the player is not muted',
  scope: 'players:mute',
  handler: (ctx) =>
    playerWrite(ctx, ctx.params.ref, 'unmute', () =>
      ctx.call('players.unmute', { ref: ctx.params.ref, actor: ctx.actor }),
    ),
});

export const MODERATION_ROUTES = [banPlayer, unbanPlayer, mutePlayer, unmutePlayer];
