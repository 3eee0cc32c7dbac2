/**
 * Command ops (PROTOCOL §6): run one admin console command, read the command catalogue, page the
 * command history. Shapes are the spec's ("Command catalog entry", "Command history entry"); the
 * returned subject of a command is our shape (the spec leaves it open, docs/commands.md).
 */
import * as z from 'zod';
import { defineOp } from './define.ts';
import { PlayerRef, WriteActor } from './players.ts';
import { Identity, Position, opPage, pageArgs, platformId, socialId } from './schemas.ts';
import { lazySchema } from '../lazy-schema.ts';

/** `YYYY-MM-DD HH:MM:SS.mmm` on the game server's local clock: history stamps and date bounds. */
export const HISTORY_STAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/;
export const historyStamp = z.string().regex(HISTORY_STAMP);

export const CommandArgSpec = lazySchema(() =>
  z
    .object({
      name: z.string(),
      type_name: z.string(),
      description: z.string(),
      data_type: z.string().describe('string, int, float or bool'),
      completion: z.string().describe('What a client may offer: values, items, vehicles, flags, none'),
      required: z.boolean(),
      repeating: z.boolean().describe('Takes every remaining word'),
      values: z.array(z.string()).describe('Options of a fixed-choice argument; empty when dynamic'),
    })

    .meta({ id: 'CommandArg' }),
);

export const CommandCatalogEntry = lazySchema(() =>
  z
    .object({
      verb: z.string(),
      level: z
        .number()
        .int()
        .min(0)
        .max(4)
        .describe('0 regular, 1 admin, 2 super admin, 3 elevated, 4 developer'),
      target_mode: z.string().describe('none, player, position or player_or_position'),
      output_mode: z.string().describe('text, list or silent'),
      requires_online: z.boolean().describe('Needs at least one connected player to carry it'),
      direct_spawn_capable: z.boolean(),
      args: z.array(CommandArgSpec()),
    })

    .meta({ id: 'CommandCatalogEntry' }),
);

export const CommandCatalog = lazySchema(() =>
  z
    .object({ version: z.number().int(), data: z.array(CommandCatalogEntry()) })

    .meta({ id: 'CommandCatalog' }),
);

/** Who ran a command; both ids null when nobody can be named. */
export const CommandActor = lazySchema(() =>
  z
    .object({ platform_id: platformId.nullable(), social_id: socialId.nullable() })

    .meta({ id: 'CommandActor' }),
);

/**
 * Where a console command came from, as the spec lists them ("all sources (API, panel console,
 * chat command, scheduled task)"): a history entry's optional `source` (PROTOCOL §6.6).
 */
export const COMMAND_SOURCES = ['api', 'panel', 'chat', 'task'] as const;
export type CommandSource = (typeof COMMAND_SOURCES)[number];

export const CommandHistoryEntry = lazySchema(() =>
  z
    .object({
      at: historyStamp.describe("YYYY-MM-DD HH:MM:SS.mmm on the game server's local clock"),
      command: z.string(),
      result: z.string(),
      actor: CommandActor().nullable().describe('Null on entries written by a game server older than 2.0.47'),
      source: z
        .enum(COMMAND_SOURCES)
        .optional()
        .describe(
          "Where the command came from: the write's actor.source (api, panel), chat or task; absent when the game does not record it",
        ),
    })

    .meta({ id: 'CommandHistoryEntry' }),
);

/** What a command was aimed at, as the game resolved it: a player or a world position. */
export const CommandSubject = lazySchema(() =>
  z
    .object({
      kind: z.enum(['player', 'position']),
      player: Identity.nullable().describe(
        'Set when kind is player; social_id null when unlinked or unknown',
      ),
      position: Position.nullable().describe('Set when kind is position'),
    })

    .meta({ id: 'CommandSubject' }),
);

export const CommandResult = lazySchema(() =>
  z
    .object({
      verb: z.string().describe("The catalogue's spelling when the verb is known, else as sent"),
      success: z.boolean(),
      result: z.string().describe("The game's own text; empty for a silent command that succeeded"),
      subject: CommandSubject().nullable(),
    })

    .meta({ id: 'CommandResult' }),
);

/** The subject a caller names: a player by ref, or a world position. */
export const CommandTarget = z.union([z.object({ player: PlayerRef }), z.object({ position: Position })]);

export const commandsExecute = defineOp({
  name: 'commands.execute',
  args: () =>
    z.object({
      verb: z.string().min(1),
      args: z.array(z.string()),
      subject: CommandTarget.nullable(),
      actor: WriteActor,
    }),
  result: CommandResult,
  deadlineMs: 10_000,
  mutates: true,
});

export const commandsCatalog = defineOp({
  name: 'commands.catalog',
  args: () => z.object({}),
  result: CommandCatalog,
  deadlineMs: 5_000,
  mutates: false,
});

export const commandsHistory = defineOp({
  name: 'commands.history',
  args: () =>
    z.object({
      command: z.string().min(1).optional(),
      /** Inclusive bounds, already normalised by the daemon to the full stamp form. */
      start_date: historyStamp.optional(),
      end_date: historyStamp.optional(),
      ...pageArgs,
    }),
  result: () => opPage(CommandHistoryEntry(), false),
  deadlineMs: 5_000,
  mutates: false,
});

export const COMMAND_OPS = {
  [commandsExecute.name]: commandsExecute,
  [commandsCatalog.name]: commandsCatalog,
  [commandsHistory.name]: commandsHistory,
} as const;
