/**
 * Commands (docs/commands.md): run an admin console command, read the command catalogue, page
 * the command history. Decisions where the spec is silent are in docs/commands.md: the returned
 * subject's shape, the catalogue's max-age, bounds on verbs and arguments.
 */
import * as z from 'zod';
import {
  COMMAND_SOURCES,
  CommandCatalog,
  CommandHistoryEntry,
  CommandResult,
} from '../../protocol/ops/commands.ts';
import { ASSET_TAG, SQUAD_TAG } from './asset-params.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import { cursorParam, dateOrder, limitParam, playerRefParam } from './params.ts';
import { PLAYERS_TAG } from './players.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

/** The catalogue changes only when the game server restarts on a new build: a minute is fresh enough. */
export const CATALOG_MAX_AGE_SEC = 60;
export const MAX_VERB_LENGTH = 64;
export const MAX_ARGS = 64;
export const MAX_ARG_LENGTH = 500;
export const MAX_COMMAND_FILTER_LENGTH = 200;

const CONTROL = /\p{Cc}/u;
const WHITESPACE = /\s/u;

const verb = lazySchema(() =>
  z
    .string()
    .min(1, 'required')
    .max(MAX_VERB_LENGTH, `at most ${MAX_VERB_LENGTH} characters`)
    .refine((text) => !WHITESPACE.test(text), 'one token: no whitespace')
    .refine((text) => !CONTROL.test(text), 'no control characters')
    .describe('The command, one token, e.g. Announce'),
);

const arg = lazySchema(() =>
  z
    .string()
    .min(1, 'an argument cannot be empty')
    .max(MAX_ARG_LENGTH, `at most ${MAX_ARG_LENGTH} characters`)
    .refine((text) => !CONTROL.test(text), 'no control characters'),
);

const coordinate = z.number().describe('World coordinate');

/**
 * `{player: <player_ref>}` or `{x, y, z}`, never both. One object with a rule rather than a union,
 * so a body with both is refused with a message that says so.
 */
const Subject = lazySchema(() =>
  z
    .object({
      player: playerRefParam.optional().describe('A 17-digit platform id or social:<social id>'),
      x: coordinate.optional(),
      y: coordinate.optional(),
      z: coordinate.optional(),
    })
    .strict()
    .superRefine((subject, ctx) => {
      const coordinates = [subject.x, subject.y, subject.z].filter((c) => c !== undefined).length;
      if (subject.player !== undefined && coordinates > 0) {
        ctx.addIssue({ code: 'custom', message: 'either {player} or {x, y, z}, never both' });
      } else if (subject.player === undefined && coordinates !== 3) {
        ctx.addIssue({ code: 'custom', message: 'either {player: <player_ref>} or all of x, y and z' });
      }
    })
    .transform((subject) =>
      subject.player !== undefined
        ? { player: subject.player }
        : { position: { x: subject.x as number, y: subject.y as number, z: subject.z as number } },
    )
    .meta({
      description: 'Omit for a server-wide command. Either {player: <player_ref>} or {x, y, z}, never both',
      oneOf: [{ required: ['player'] }, { required: ['x', 'y', 'z'] }],
    }),
);

const ExecuteBody = lazySchema(() =>
  z
    .object({
      verb: verb(),
      args: z
        .array(arg())
        .max(MAX_ARGS, `at most ${MAX_ARGS} arguments`)
        .optional()
        .describe('Positional, in the order the command declares'),
      subject: Subject().optional(),
    })
    .strict()
    .meta({ id: 'CommandRequest' }),
);

export const executeCommand = defineRoute({
  method: 'POST',
  path: '/v1/commands',
  operationId: 'executeCommand',
  summary: "Run an admin console command; 200 with the game's answer even when it refused",
  tag: 'Commands',
  scope: 'commands:execute',
  body: ExecuteBody,
  response: { status: 200, schema: CommandResult },
  cache: { kind: 'no-store' },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: async (ctx) => {
    try {
      return await ctx.call('commands.execute', {
        verb: ctx.body.verb,
        args: ctx.body.args ?? [],
        subject: ctx.body.subject ?? null,
        actor: ctx.actor,
      });
    } finally {
      // A command can move money, presence, moderation and assets: drop what a read may have cached.
      ctx.invalidate([PLAYERS_TAG, ASSET_TAG, SQUAD_TAG]);
    }
  },
});

export const getCommandCatalog = defineRoute({
  method: 'GET',
  path: '/v1/commands/catalog',
  operationId: 'getCommandCatalog',
  summary: 'The command catalogue, sorted by verb; 503 until the game server has built it',
  tag: 'Commands',
  scope: 'commands:read',
  response: { status: 200, schema: CommandCatalog },
  cache: { kind: 'private', maxAgeSec: CATALOG_MAX_AGE_SEC },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: async ({ read }) => {
    const catalog = await read('commands.catalog', {});
    // Sorted here whatever the mod sent, so identical catalogues give byte-identical responses.
    const data = [...catalog.data].sort((a, b) => (a.verb < b.verb ? -1 : a.verb > b.verb ? 1 : 0));
    return { version: catalog.version, data };
  },
});

const DATE_FORM = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(\.\d{3})?)?$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * A history bound in the full `YYYY-MM-DD HH:MM:SS.mmm` form, or undefined when `text` is not one
 * of the spec's forms or names a moment that does not exist. A bare date is the whole day (start
 * 00:00:00.000, end 23:59:59.999); a time without milliseconds is the whole second.
 */
export function historyBound(text: string, edge: 'start' | 'end'): string | undefined {
  const match = DATE_FORM.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const date = text.slice(0, 10);
  if (match[4] === undefined) return `${date} ${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}`;
  if (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6]) > 59) return undefined;
  return `${text.slice(0, 19)}${match[7] ?? (edge === 'start' ? '.000' : '.999')}`;
}

function dateParam(edge: 'start' | 'end') {
  return z
    .string()
    .regex(DATE_FORM, 'YYYY-MM-DD or YYYY-MM-DD HH:MM:SS[.mmm]')
    .transform((text, ctx) => {
      const bound = historyBound(text, edge);
      if (bound === undefined) {
        ctx.addIssue({ code: 'custom', message: `${text} is not a real date and time` });
        return z.NEVER;
      }
      return bound;
    })
    .describe(
      `Inclusive, on the game server's clock: YYYY-MM-DD (${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}) or YYYY-MM-DD HH:MM:SS[.mmm]`,
    );
}

const HistoryQuery = lazySchema(() =>
  z
    .object({
      command: z
        .string()
        .min(1)
        .max(MAX_COMMAND_FILTER_LENGTH)
        .optional()
        .describe('Text contained in the command (case-sensitive)'),
      start_date: dateParam('start').optional(),
      end_date: dateParam('end').optional(),
      limit: limitParam(1, 100),
      cursor: cursorParam,
    })
    .strict()
    .superRefine(dateOrder),
);

/**
 * A history entry as /v1 answers it: the link's, with `source` always there, null when the game
 * did not say (a mod before the field), as `actor` is null on a game server too old for it.
 */
const ApiCommandHistoryEntry = lazySchema(() =>
  CommandHistoryEntry()
    .extend({
      source: z
        .enum(COMMAND_SOURCES)
        .nullable()
        .describe(
          'Where the command came from: api (/v1), panel (the panel console), chat (typed in game) or task (scheduled); null when the game does not record it',
        ),
    })
    .meta({ id: 'CommandHistoryEntry' }),
);

export const listCommandHistory = defineRoute({
  method: 'GET',
  path: '/v1/commands/history',
  operationId: 'listCommandHistory',
  summary: 'Command history from every source, newest first; never cached',
  tag: 'Commands',
  scope: 'commands:read',
  query: HistoryQuery,
  response: {
    status: 200,
    schema: () => collection(ApiCommandHistoryEntry(), false, 'CommandHistoryPage'),
  },
  cache: { kind: 'no-store' },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: async ({ query: { cursor, limit, ...filters }, page }) => {
    const answer = await page('commands.history', filters, { cursor, limit });
    return { ...answer, data: answer.data.map((entry) => ({ ...entry, source: entry.source ?? null })) };
  },
});

export const COMMAND_ROUTES = [executeCommand, getCommandCatalog, listCommandHistory];
