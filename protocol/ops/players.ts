/**
 * Player ops (PROTOCOL §6): reads of the roster, live snapshot, profile, inventory, moderation
 * state and sensitive history; moderation and social-link writes. Shapes are the spec's.
 */
import * as z from 'zod';
import { defineOp } from './define.ts';
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

/** A player named by platform id or by linked social id; the mod resolves it (not_found if it cannot). */
export const PlayerRef = z.union([z.object({ platform_id: platformId }), z.object({ social_id: socialId })]);

/** Who a write is attributed to: the API key, and the player identity its owner gave it. */
export const WriteActor = z
  .object({
    key_id: z.string(),
    name: z.string(),
    platform_id: platformId.nullable(),
    social_id: socialId.nullable(),
  })

  .meta({ id: 'WriteActor' });

export const MUTE_CHANNELS = ['Global', 'Local', 'Squad'] as const;

const Attributes = z.object({
  strength: z.number(),
  constitution: z.number(),
  dexterity: z.number(),
  intelligence: z.number(),
});

export const RosterRow = z
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
    attributes: Attributes,
    play_time: z.number().int().describe('Minutes played'),
    is_admin: z.boolean(),
    last_seen: sqlDateTime,
    created_at: sqlDateTime,
  })

  .meta({ id: 'RosterRow' });

const ServiceStats = z
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

  .meta({ id: 'ServiceStats' });

const Survival = z
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

  .meta({ id: 'Survival' });

export const PlayerProfile = RosterRow.extend({
  service_stats: ServiceStats,
  skills: z.record(z.string(), z.number()).describe('Skill name to fractional level'),
  bases: z.array(Base),
  vehicles: z.array(Vehicle),
  survival: Survival,
})

  .meta({ id: 'PlayerProfile' });

export const OnlineRow = z
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

  .meta({ id: 'OnlinePlayer' });

export const ModerationState = z
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

  .meta({ id: 'ModerationState' });

export const Violation = z
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

  .meta({ id: 'Violation' });

export const IpHistory = z
  .object({
    current_ip: z.string(),
    history: z.array(z.object({ ip: z.string(), first_seen: isoDateTime, last_seen: isoDateTime })),
  })

  .meta({ id: 'IpHistory' });

const READ_MS = 5_000;
const WRITE_MS = 10_000;
const read = <N extends string, A extends z.ZodType, R extends z.ZodType>(name: N, args: A, result: R) =>
  defineOp({ name, args, result, deadlineMs: READ_MS, mutates: false });
const write = <N extends string, A extends z.ZodType, R extends z.ZodType>(name: N, args: A, result: R) =>
  defineOp({ name, args, result, deadlineMs: WRITE_MS, mutates: true });
const byRef = z.object({ ref: PlayerRef });

export const playersList = read(
  'players.list',
  z.object({
    platform_id: platformId.optional(),
    social_id: socialId.optional(),
    online: z.boolean().optional(),
    search: z.string().optional(),
    ...pageArgs,
  }),
  opPage(RosterRow, true),
);
export const playersOnline = read(
  'players.online',
  z.object({ platform_id: platformId.optional(), social_id: socialId.optional() }),
  z.object({ online: z.number().int().nonnegative(), data: z.array(OnlineRow) }),
);
export const playersGet = read('players.get', byRef, PlayerProfile);
export const playersInventory = read('players.inventory', byRef, z.object({ items: z.array(InventoryItem) }));
export const playersModeration = read('players.moderation', byRef, ModerationState);
export const playersViolations = read(
  'players.violations',
  z.object({ ref: PlayerRef, ...pageArgs }),
  opPage(Violation, false),
);
export const playersIps = read('players.ips', byRef, IpHistory);

const duration = {
  reason: z.string().min(1).max(500),
  permanent: z.boolean(),
  duration: z.number().int().positive().nullable(),
  actor: WriteActor,
};
export const playersBan = write(
  'players.ban',
  z.object({
    ref: PlayerRef,
    ...duration,
    duration_unit: z.enum(['minutes', 'hours', 'days', 'months']),
    squad_id: z
      .string()
      .regex(/^[0-9]{1,20}$/)
      .nullable()
      .describe('Also ban this squad'),
  }),
  ModerationState,
);
export const playersUnban = write(
  'players.unban',
  z.object({ ref: PlayerRef, actor: WriteActor }),
  ModerationState,
);
export const playersMute = write(
  'players.mute',
  z.object({
    ref: PlayerRef,
    ...duration,
    duration_unit: z.enum(['minutes', 'hours', 'days']),
    channels: z.array(z.enum(MUTE_CHANNELS)).min(1),
  }),
  ModerationState,
);
export const playersUnmute = write(
  'players.unmute',
  z.object({ ref: PlayerRef, actor: WriteActor }),
  ModerationState,
);
export const playersLink = write(
  'players.link',
  z.object({ platform_id: platformId, social_id: socialId, actor: WriteActor }),
  z.object({ player: Identity }),
);
export const playersUnlink = write(
  'players.unlink',
  z.object({ ref: PlayerRef, actor: WriteActor }),
  z.object({ player: Identity }),
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
