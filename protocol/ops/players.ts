/**
 * Player ops (PROTOCOL §6): reads of the roster, live snapshot, profile, inventory, moderation
 * state and sensitive history; moderation and social-link writes. Shapes are the spec's.
 */
import * as z from 'zod';
import { readOp as read, writeOp as write } from './define.ts';
import {
  Base,
  Identity,
  InventoryItem,
  Moderator,
  Position,
  Vehicle,
  isoDateTime,
  opPage,
  pageArgs,
  platformId,
  socialId,
  sqlDateTime,
} from './schemas.ts';
import { lazySchema } from '../lazy-schema.ts';

/** A player named by platform id or by linked social id; the mod resolves it (not_found if it cannot). */
export const PlayerRef = z.union([z.object({ platform_id: platformId }), z.object({ social_id: socialId })]);

/**
 * Where a write was made (PROTOCOL §6.6, "Where a write comes from"): a bot through /v1 (`api`)
 * or the operator's panel (`panel`). Optional on the wire: a daemon before it sent none, which
 * means `api`, so version-1 mods keep working.
 */
export const WRITE_SOURCES = ['api', 'panel'] as const;
export type WriteSource = (typeof WRITE_SOURCES)[number];

/**
 * A ban, unban, mute or unmute may also come from another server of the daemon's group, which
 * this daemon applies (`group`, docs/group.md): only these four ops take it.
 */
export const MODERATION_SOURCES = [...WRITE_SOURCES, 'group'] as const;
export type ModerationSource = (typeof MODERATION_SOURCES)[number];

/** Who a write is attributed to: the API key (or the panel's admin), and the identity it acts for. */
export const WriteActor = z
  .object({
    key_id: z.string(),
    name: z.string(),
    platform_id: platformId.nullable(),
    social_id: socialId.nullable(),
    source: z.enum(WRITE_SOURCES).optional().describe('Absent means api'),
  })

  .meta({ id: 'WriteActor' });

/** The actor of a moderation write: a WriteActor whose source may also be `group`. */
export const ModerationActor = WriteActor.extend({
  source: z.enum(MODERATION_SOURCES).optional().describe('Absent means api'),
}).meta({ id: 'ModerationActor' });

export const MUTE_CHANNELS = ['Global', 'Local', 'Squad'] as const;

const Attributes = lazySchema(() =>
  z.object({
    strength: z.number(),
    constitution: z.number(),
    dexterity: z.number(),
    intelligence: z.number(),
  }),
);

export const RosterRow = lazySchema(() =>
  z
    .object({
      platform_id: platformId,
      social_id: socialId.nullable(),
      user_profile_id: z.number().int(),
      platform_name: z.string(),
      char_name: z.string(),
      online: z.boolean(),
      squad: z
        .object({ id: z.number().int(), name: z.string(), rank: z.number().int().min(1).max(4) })

        .nullable(),
      money: z.number().int(),
      gold: z.number().int(),
      coins: z.number().int(),
      fame_points: z.number(),
      attributes: Attributes(),
      play_time: z.number().int().describe('Minutes played'),
      is_admin: z.boolean(),
      last_seen: sqlDateTime,
      created_at: sqlDateTime,
    })

    .meta({ id: 'RosterRow' }),
);

const ServiceStats = lazySchema(() =>
  z
    .object({
      kills: z.number().int(),
      deaths: z.number().int(),
      puppet_kills: z.number().int(),
      animal_kills: z.number().int(),
      headshots: z.number().int(),
      longest_kill_m: z.number(),
      kill_streak: z.number().int(),
      best_kill_streak: z.number().int(),
      total_kills: z.number().int().nullable().describe('Null on mods older than 2.0.47'),
      total_deaths: z.number().int().nullable().describe('Null on mods older than 2.0.47'),
      login_streak: z.number().int().nullable().describe('Null on mods older than 2.0.47'),
      logins: z.number().int(),
      first_login_at: sqlDateTime,
      last_login_at: sqlDateTime,
      last_kill_at: sqlDateTime.nullable(),
      last_death_at: sqlDateTime.nullable(),
    })

    .meta({ id: 'ServiceStats' }),
);

const Survival = lazySchema(() =>
  z
    .object({
      health: z.number(),
      stamina: z.number(),
      hunger: z.number(),
      thirst: z.number(),
      fatigue: z.number(),
      body_temperature: z.number(),
      bleeding: z.boolean(),
      infected: z.boolean(),
      broken_limbs: z.number().int(),
      weight_carried: z.number(),
      weight_limit: z.number(),
    })

    .meta({ id: 'Survival' }),
);

export const PlayerProfile = lazySchema(() =>
  RosterRow()
    .extend({
      service_stats: ServiceStats(),
      skills: z.record(z.string(), z.number()).describe('Skill name to fractional level'),
      bases: z.array(Base()),
      vehicles: z.array(Vehicle()),
      survival: Survival(),
    })

    .meta({ id: 'PlayerProfile' }),
);

export const OnlineRow = lazySchema(() =>
  z
    .object({
      platform_id: platformId,
      name: z.string(),
      ping: z.number().int(),
      position: Position,
      alive: z.boolean(),
      conscious: z.boolean(),
      immortal: z.boolean(),
      super_jump: z.boolean(),
      is_admin: z.boolean(),
      money: z.number(),
      gold: z.number(),
      fame_points: z.number(),
      stance: z.string(),
      item_in_hands: z.string().nullable(),
    })

    .meta({ id: 'OnlinePlayer' }),
);

export const ModerationState = lazySchema(() =>
  z
    .object({
      player: Identity,
      ban: z.object({
        banned: z.boolean(),
        reason: z.string(),
        permanent: z.boolean(),
        expires_at: isoDateTime.nullable(),
        banned_at: isoDateTime.nullable(),
        banned_by: Moderator.nullable(),
      }),
      mute: z.object({
        muted: z.boolean(),
        permanent: z.boolean(),
        muted_at: isoDateTime.nullable(),
        duration_minutes: z.number().int().nullable(),
        channels: z.array(z.enum(MUTE_CHANNELS)),
      }),
    })

    .meta({ id: 'ModerationState' }),
);

export const Violation = lazySchema(() =>
  z
    .object({
      id: z.number().int(),
      type: z.enum(['ban', 'mute', 'trap']),
      action: z.string(),
      source: z.string(),
      reason: z.string(),
      issued_by: Moderator,
      applied_at: isoDateTime,
      expires_at: isoDateTime.nullable(),
      duration_sec: z.number().int(),
      metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    })

    .meta({ id: 'Violation' }),
);

export const IpHistory = lazySchema(() =>
  z
    .object({
      current_ip: z.string(),
      history: z.array(z.object({ ip: z.string(), first_seen: isoDateTime, last_seen: isoDateTime })),
    })

    .meta({ id: 'IpHistory' }),
);

const byRef = lazySchema(() => z.object({ ref: PlayerRef }));

export const playersList = read(
  'players.list',
  () =>
    z.object({
      platform_id: platformId.optional(),
      social_id: socialId.optional(),
      online: z.boolean().optional(),
      search: z.string().optional(),
      ...pageArgs,
    }),
  () => opPage(RosterRow(), true),
);
export const playersOnline = read(
  'players.online',
  () => z.object({ platform_id: platformId.optional(), social_id: socialId.optional() }),
  () => z.object({ online: z.number().int().nonnegative(), data: z.array(OnlineRow()) }),
);
export const playersGet = read('players.get', byRef, PlayerProfile);
export const playersInventory = read('players.inventory', byRef, () =>
  z.object({ items: z.array(InventoryItem()) }),
);
export const playersModeration = read('players.moderation', byRef, ModerationState);
export const playersViolations = read(
  'players.violations',
  () => z.object({ ref: PlayerRef, ...pageArgs }),
  () => opPage(Violation(), false),
);
export const playersIps = read('players.ips', byRef, IpHistory);

/**
 * The longest ban or mute per unit, ten years in each (PROTOCOL §6.6, docs/players.md "Durations");
 * mutes take no months. The daemon refuses a longer one at its API, so a mod never sees it.
 */
/** A temporary mute is rounded up to a multiple of this many minutes (PROTOCOL §6.6). */
export const MUTE_STEP_MINUTES = 60;

/** The game's mute rounding (PROTOCOL §6.6): up to the next whole hour (90 → 120, 60 → 60, 1 → 60). */
export function roundMuteMinutes(minutes: number): number {
  return Math.ceil(minutes / MUTE_STEP_MINUTES) * MUTE_STEP_MINUTES;
}

export const BAN_CAPS = { minutes: 5_256_000, hours: 87_600, days: 3_650, months: 120 } as const;
export const MUTE_CAPS = { minutes: 5_256_000, hours: 87_600, days: 3_650 } as const;
type DurationUnit = keyof typeof BAN_CAPS;

const duration = lazySchema(() => ({
  reason: z.string().min(1).max(500),
  permanent: z.boolean(),
  duration: z
    .number()
    .int()
    .positive()
    .max(BAN_CAPS.minutes)
    .nullable()
    .describe(
      'Nil when permanent is true (and then ignored); otherwise required, at most the cap of duration_unit',
    ),
  actor: ModerationActor,
}));

/** PROTOCOL §6.6: a duration unless permanent, at most the unit's cap; else the op error `invalid`. */
function durationRule(caps: Partial<Record<DurationUnit, number>>) {
  return (
    args: { permanent: boolean; duration: number | null; duration_unit: DurationUnit },
    ctx: z.RefinementCtx,
  ) => {
    if (args.permanent) return;
    const cap = caps[args.duration_unit] ?? 0;
    // Over the largest cap of all, the field's own maximum has said so already.
    if (args.duration !== null && (args.duration <= cap || args.duration > BAN_CAPS.minutes)) return;
    const message =
      args.duration === null ? 'required unless permanent is true' : `at most ${cap} ${args.duration_unit}`;
    ctx.addIssue({ code: 'custom', path: ['duration'], message });
  };
}

/** The same rule as JSON Schema for ops.schema.json, which zod's refinements do not reach. */
function durationJson(caps: Partial<Record<DurationUnit, number>>) {
  return [
    {
      if: { properties: { permanent: { const: false } }, required: ['permanent'] },
      then: { properties: { duration: { type: 'integer' } } },
    },
    ...Object.entries(caps).map(([unit, cap]) => ({
      if: { properties: { duration_unit: { const: unit } }, required: ['duration_unit'] },
      then: { properties: { duration: { maximum: cap } } },
    })),
  ];
}

export const playersBan = write(
  'players.ban',
  () =>
    z
      .object({
        ref: PlayerRef,
        ...duration(),
        duration_unit: z.enum(['minutes', 'hours', 'days', 'months']),
        squad_id: z
          .string()
          .regex(/^[0-9]{1,20}$/)
          .nullable()
          .describe('Also ban this squad'),
      })
      .superRefine(durationRule(BAN_CAPS))
      .meta({
        description:
          'A ban keeps its exact duration: expires_at is banned_at plus duration, a month being 30 days (PROTOCOL §6.6).',
        allOf: durationJson(BAN_CAPS),
      }),
  ModerationState,
);
export const playersUnban = write(
  'players.unban',
  () => z.object({ ref: PlayerRef, actor: ModerationActor }),
  ModerationState,
);
export const playersMute = write(
  'players.mute',
  () =>
    z
      .object({
        ref: PlayerRef,
        ...duration(),
        duration_unit: z.enum(['minutes', 'hours', 'days']),
        channels: z.array(z.enum(MUTE_CHANNELS)).min(1),
      })
      .superRefine(durationRule(MUTE_CAPS))
      .meta({
        description:
          'The game rounds a temporary mute up to whole hours: asked 90 minutes, it mutes for and answers duration_minutes 120 (PROTOCOL §6.6).',
        allOf: durationJson(MUTE_CAPS),
      }),
  ModerationState,
);
export const playersUnmute = write(
  'players.unmute',
  () => z.object({ ref: PlayerRef, actor: ModerationActor }),
  ModerationState,
);
export const playersLink = write(
  'players.link',
  () => z.object({ platform_id: platformId, social_id: socialId, actor: WriteActor }),
  () => z.object({ player: Identity }),
);
export const playersUnlink = write(
  'players.unlink',
  () => z.object({ ref: PlayerRef, actor: WriteActor }),
  () => z.object({ player: Identity }),
);

export const PLAYER_OPS = {
  [playersList.name]: playersList,
  [playersOnline.name]: playersOnline,
  [playersGet.name]: playersGet,
  [playersInventory.name]: playersInventory,
  [playersModeration.name]: playersModeration,
  [playersViolations.name]: playersViolations,
  [playersIps.name]: playersIps,
  [playersBan.name]: playersBan,
  [playersUnban.name]: playersUnban,
  [playersMute.name]: playersMute,
  [playersUnmute.name]: playersUnmute,
  [playersLink.name]: playersLink,
  [playersUnlink.name]: playersUnlink,
} as const;
