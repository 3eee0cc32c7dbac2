/**
 * Asset ops (PROTOCOL §6): reads of squads, bases, vehicles and containers (docs/assets.md),
 * one op per endpoint. Shapes are the spec's.
 *
 * Every id crosses the link as a decimal string, never a number: vehicle and container entity
 * ids can pass 2^53-1 (docs/assets.md#ids), and squad and flag ids use the same form so an
 * id from a path reaches the mod exactly as the client wrote it. Lists are keyset pages
 * (PROTOCOL §6.5): `after` is the mod's own position text from the previous page's `next`.
 */
import * as z from 'zod';
import { readOp as read } from './define.ts';
import {
  Base,
  Container,
  DECIMAL_ID,
  InventoryItem,
  Vehicle,
  opPage,
  pageArgs,
  platformId,
  socialId,
} from './schemas.ts';
import { lazySchema } from '../lazy-schema.ts';

/** A squad, base, vehicle or container id: a positive decimal without leading zeros. */
export const assetId = z.string().regex(/^[1-9][0-9]{0,19}$/);

export const SquadRow = lazySchema(() =>
  z
    .object({
      id: z.number().int(),
      name: z.string(),
      score: z.number(),
      member_limit: z.number().int(),
      member_count: z.number().int(),
      leader: z.object({
        id: z.number().int(),
        platform_id: platformId,
        social_id: socialId.nullable(),
        name: z.string(),
      }),
      last_active: z.string().describe('Raw server-local timestamp `YYYY.MM.DD-HH.MM.SS`, not ISO-8601'),
    })

    .meta({ id: 'Squad' }),
);

export const SquadMember = lazySchema(() =>
  z
    .object({
      id: z.number().int(),
      profile_id: z.number().int(),
      platform_id: platformId,
      social_id: socialId.nullable(),
      platform_name: z.string(),
      char_name: z.string(),
      rank: z.number().int().min(1).max(4).describe('4 leader, 3 officer, 2 member, 1 recruit'),
      kills: z.number().int(),
      deaths: z.number().int(),
      cash: z.number().int().describe('Cash carried'),
      bank_money: z.number().int(),
      gold: z.number().int(),
      fame_points: z.number(),
      online: z.boolean(),
      last_logout: z.string().describe('Raw server-local timestamp `YYYY.MM.DD-HH.MM.SS`'),
    })

    .meta({ id: 'SquadMember' }),
);

export const SquadSummary = lazySchema(() =>
  z
    .object({
      squad_id: z.number().int(),
      total_kills: z.number().int(),
      total_deaths: z.number().int(),
      total_cash: z.number().int(),
      total_bank_money: z.number().int(),
      total_gold: z.number().int(),
      total_fame: z.number().describe('Sum of the members’ fame points, rounded to 2 decimals'),
      total_containers: z.number().int(),
      total_vehicles: z.number().int(),
      member_count: z.number().int(),
    })

    .meta({ id: 'SquadSummary' }),
);

export const Inventory = lazySchema(() =>
  z
    .object({
      items: z.array(InventoryItem()),
      total: z.number().int().nonnegative().describe('Items in the tree at every depth'),
    })

    .meta({ id: 'AssetInventory' }),
);

export const TypeCounts = lazySchema(() =>
  z
    .object({ types: z.record(z.string(), z.number().int().nonnegative()).describe('Display name to count') })

    .meta({ id: 'AssetTypeCounts' }),
);

const byId = lazySchema(() => z.object({ id: assetId }));
const byEntity = lazySchema(() => z.object({ entity_id: z.string().regex(DECIMAL_ID) }));
const count = z.number().int().nonnegative();
const health = z.number().min(0).max(1);

/** The owner filters shared by the base, vehicle and container lists. */
const ownerFilters = {
  owner_platform_id: platformId.optional(),
  owner_social_id: socialId.optional(),
  owner_name: z.string().min(1).optional().describe('Exact character name'),
};

export const squadsList = read(
  'squads.list',
  () =>
    z.object({
      leader_platform_id: platformId.optional(),
      leader_social_id: socialId.optional(),
      min_members: count.optional(),
      max_members: count.optional(),
      min_score: z.number().nonnegative().optional(),
      active_within_days: z.number().int().positive().optional(),
      search: z.string().min(1).optional(),
      ...pageArgs,
    }),
  () => opPage(SquadRow(), true),
);
export const squadsGet = read('squads.get', byId, SquadRow);
export const squadsMembers = read('squads.members', byId, () => z.object({ data: z.array(SquadMember()) }));
export const squadsSummary = read('squads.summary', byId, SquadSummary);
const squadPage = lazySchema(() => z.object({ id: assetId, ...pageArgs }));
export const squadsBases = read('squads.bases', squadPage, () => opPage(Base(), false));
export const squadsVehicles = read('squads.vehicles', squadPage, () => opPage(Vehicle(), false));
export const squadsContainers = read('squads.containers', squadPage, () => opPage(Container(), false));

export const basesList = read(
  'bases.list',
  () =>
    z.object({
      ...ownerFilters,
      min_elements: count.optional(),
      max_elements: count.optional(),
      min_health: health.optional(),
      max_health: health.optional(),
      search: z.string().min(1).optional(),
      ...pageArgs,
    }),
  () => opPage(Base(), true),
);
export const basesGet = read('bases.get', () => z.object({ flag_id: assetId }), Base);

export const vehiclesList = read(
  'vehicles.list',
  () =>
    z.object({
      ...ownerFilters,
      alias: z.string().min(1).optional().describe('Exact display name'),
      is_locked: z.boolean().optional(),
      is_functional: z.boolean().optional(),
      search: z.string().min(1).optional(),
      ...pageArgs,
    }),
  () => opPage(Vehicle(), true),
);
export const vehiclesGet = read('vehicles.get', byEntity, Vehicle);
export const vehiclesInventory = read('vehicles.inventory', byEntity, Inventory);
export const vehiclesTypes = read('vehicles.types', () => z.object({}), TypeCounts);

export const containersList = read(
  'containers.list',
  () =>
    z.object({
      ...ownerFilters,
      base_id: z.string().regex(DECIMAL_ID).optional(),
      is_locked: z.boolean().optional(),
      is_buried: z.boolean().optional(),
      search: z.string().min(1).optional(),
      ...pageArgs,
    }),
  () => opPage(Container(), true),
);
export const containersGet = read('containers.get', byEntity, Container);
export const containersInventory = read('containers.inventory', byEntity, Inventory);
export const containersTypes = read('containers.types', () => z.object({}), TypeCounts);

export const ASSET_OPS = {
  [squadsList.name]: squadsList,
  [squadsGet.name]: squadsGet,
  [squadsMembers.name]: squadsMembers,
  [squadsSummary.name]: squadsSummary,
  [squadsBases.name]: squadsBases,
  [squadsVehicles.name]: squadsVehicles,
  [squadsContainers.name]: squadsContainers,
  [basesList.name]: basesList,
  [basesGet.name]: basesGet,
  [vehiclesList.name]: vehiclesList,
  [vehiclesGet.name]: vehiclesGet,
  [vehiclesInventory.name]: vehiclesInventory,
  [vehiclesTypes.name]: vehiclesTypes,
  [containersList.name]: containersList,
  [containersGet.name]: containersGet,
  [containersInventory.name]: containersInventory,
  [containersTypes.name]: containersTypes,
} as const;
