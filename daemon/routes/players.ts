/**
 * Player reads (docs/players.md). Declarations: the op answers in the spec's shapes, the
 * pipeline does the rest. The roster, online snapshot, profile, inventory and moderation reads go
 * through the read cache for a short private max-age; violations and IP history are sensitive
 * and always reach the game server (no-store).
 */
import * as z from 'zod';
import {
  IpHistory,
  ModerationState,
  OnlineRow,
  PlayerProfile,
  RosterRow,
  Violation,
} from '../../protocol/ops/players.ts';
import { InventoryItem } from '../../protocol/ops/schemas.ts';
import { collection } from './collection.ts';
import { defineRoute } from '../http/define-route.ts';
import {
  booleanParam,
  cursorParam,
  filterRules,
  limitParam,
  platformIdParam,
  playerRefParam,
  searchParam,
  socialIdParam,
} from './params.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

/** "Short" private max-age of the player reads (docs/players.md). */
export const PLAYER_MAX_AGE_SEC = 5;
/** Read-cache tag every player write drops. */
export const PLAYERS_TAG = 'players';

const cached = { kind: 'private', maxAgeSec: PLAYER_MAX_AGE_SEC } as const;
const refParams = lazySchema(() =>
  z.object({ ref: playerRefParam.describe('A 17-digit platform id, or social:<social id>') }),
);
export const listPlayers = defineRoute({
  method: 'GET',
  path: '/v1/players',
  operationId: 'listPlayers',
  summary: 'The roster: every player on record',
  tag: 'Players',
  scope: 'players:read',
  query: () =>
    z
      .object({
        platform_id: platformIdParam.optional(),
        social_id: socialIdParam.optional(),
        online: booleanParam.optional(),
        search: searchParam.optional().describe('Substring of the character or platform name'),
        limit: limitParam(10, 100),
        cursor: cursorParam,
      })
      .strict()
      .superRefine(
        filterRules({
          structured: ['platform_id', 'social_id', 'online'],
          pairs: [['platform_id', 'social_id']],
        }),
      ),
  response: { status: 200, schema: () => collection(RosterRow(), true, 'RosterPage') },
  cache: cached,
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ query: { cursor, limit, ...filters }, page }) =>
    page('players.list', filters, { cursor, limit, tags: [PLAYERS_TAG] }),
});

export const listOnlinePlayers = defineRoute({
  method: 'GET',
  path: '/v1/players/online',
  operationId: 'listOnlinePlayers',
  summary: 'Live snapshot of connected players',
  tag: 'Players',
  scope: 'players:read',
  query: () =>
    z
      .object({ platform_id: platformIdParam.optional(), social_id: socialIdParam.optional() })
      .strict()
      .superRefine(filterRules({ structured: [], pairs: [['platform_id', 'social_id']] })),
  response: {
    status: 200,
    schema: () =>
      z.object({ online: z.number().int(), data: z.array(OnlineRow()) }).meta({ id: 'OnlineSnapshot' }),
  },
  cache: cached,
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ query, read }) => read('players.online', query, [PLAYERS_TAG]),
});

export const getPlayer = defineRoute({
  method: 'GET',
  path: '/v1/players/{ref}',
  operationId: 'getPlayer',
  summary: "A player's full profile",
  tag: 'Players',
  scope: 'players:read',
  params: refParams,
  response: { status: 200, schema: PlayerProfile },
  cache: cached,
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ params, read }) => read('players.get', { ref: params.ref }, [PLAYERS_TAG]),
});

export const getPlayerInventory = defineRoute({
  method: 'GET',
  path: '/v1/players/{ref}/inventory',
  operationId: 'getPlayerInventory',
  summary: "A player's inventory, nested containers included",
  tag: 'Players',
  scope: 'players:read',
  params: refParams,
  response: {
    status: 200,
    schema: () => z.object({ items: z.array(InventoryItem()) }).meta({ id: 'PlayerInventory' }),
  },
  cache: cached,
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ params, read }) => read('players.inventory', { ref: params.ref }, [PLAYERS_TAG]),
});

export const getPlayerModeration = defineRoute({
  method: 'GET',
  path: '/v1/players/{ref}/moderation',
  operationId: 'getPlayerModeration',
  summary: "A player's ban and mute state",
  tag: 'Players',
  scope: 'players:read',
  params: refParams,
  response: { status: 200, schema: ModerationState },
  cache: cached,
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ params, read }) => read('players.moderation', { ref: params.ref }, [PLAYERS_TAG]),
});

export const listPlayerViolations = defineRoute({
  method: 'GET',
  path: '/v1/players/{ref}/violations',
  operationId: 'listPlayerViolations',
  summary: 'Moderation history: bans, mutes and trap events, newest first',
  tag: 'Players',
  scope: 'players:read_sensitive',
  params: refParams,
  query: () => z.object({ limit: limitParam(1, 100), cursor: cursorParam }).strict(),
  response: { status: 200, schema: () => collection(Violation(), false, 'ViolationPage') },
  cache: { kind: 'no-store' },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ params, query: { cursor, limit }, page }) =>
    page('players.violations', { ref: params.ref }, { cursor, limit }),
});

export const getPlayerIps = defineRoute({
  method: 'GET',
  path: '/v1/players/{ref}/ips',
  operationId: 'getPlayerIps',
  summary: 'IP history, newest first',
  tag: 'Players',
  scope: 'players:read_sensitive',
  params: refParams,
  response: { status: 200, schema: IpHistory },
  cache: { kind: 'no-store' },
  errors: ['server_unavailable', 'gateway_timeout'],
  handler: ({ params, call }) => call('players.ips', { ref: params.ref }),
});

export const PLAYER_READ_ROUTES = [
  listPlayers,
  listOnlinePlayers,
  getPlayer,
  getPlayerInventory,
  getPlayerModeration,
  listPlayerViolations,
  getPlayerIps,
];
