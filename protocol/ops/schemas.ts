/**
 * Wire shapes shared by several ops (PROTOCOL §6.1). They are the spec's resource objects, snake_case,
 * every key present (null, never missing: docs/openapi.md#nullability-the-spec-does-not-state),
 * so a mod's answer passes through to the API unchanged. The daemon's routes reuse them as their
 * response schemas.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.ts';

export const PLATFORM_ID = /^[0-9]{17}$/;
export const SOCIAL_ID = /^[0-9]{17,20}$/;
/** Decimal strings for identifiers that may pass 2^53-1 (docs/assets.md#ids). */
export const DECIMAL_ID = /^[0-9]{1,20}$/;

export const platformId = z.string().regex(PLATFORM_ID);
export const socialId = z.string().regex(SOCIAL_ID);
/** `YYYY-MM-DD HH:MM:SS`. */
export const sqlDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
export const isoDateTime = z.iso.datetime({ offset: true });

export const Position = z
  .object({ x: z.number(), y: z.number(), z: z.number() })

  .meta({ id: 'Position' });

export const Identity = z
  .object({ platform_id: platformId, social_id: socialId.nullable() })

  .meta({ id: 'Identity' });

export const Owner = z
  .object({
    profile_id: z.number().int(),
    name: z.string(),
    platform_id: platformId,
    social_id: socialId.nullable(),
  })

  .meta({ id: 'Owner' });

/** Who issued a moderation action; a legacy or system entry has a null platform id. */
export const Moderator = z
  .object({ platform_id: platformId.nullable(), social_id: socialId.nullable(), name: z.string() })

  .meta({ id: 'Moderator' });

export interface InventoryItemShape {
  id: number;
  class: string;
  name: string;
  icon: string;
  health: number;
  max_health: number;
  weight: number;
  is_container: boolean;
  is_weapon: boolean;
  contents: InventoryItemShape[];
  contents_truncated: boolean;
}

export const InventoryItem = lazySchema((): z.ZodType<InventoryItemShape> =>
  z
    .object({
      id: z.number().int(),
      class: z.string(),
      name: z.string(),
      icon: z.string(),
      health: z.number(),
      max_health: z.number(),
      weight: z.number(),
      is_container: z.boolean(),
      is_weapon: z.boolean(),
      get contents() {
        return z.array(InventoryItem());
      },
      contents_truncated: z
        .boolean()
        .describe('True when the mod stopped expanding this subtree at its depth cap'),
    })

    .meta({ id: 'InventoryItem' }),
);

export const Base = lazySchema(() =>
  z
    .object({
      flag_id: z.number().int(),
      base_id: z.number().int(),
      owner: Owner,
      max_elements: z.number().int(),
      element_count: z.number().int(),
      avg_health: z.number().min(0).max(1),
      position: Position,
    })

    .meta({ id: 'Base' }),
);

const lockFields = {
  is_locked: z.boolean(),
  lock_type: z.string().nullable(),
  lock_hp: z.number(),
};

export const Vehicle = lazySchema(() =>
  z
    .object({
      entity_id: z.string().regex(DECIMAL_ID),
      class_name: z.string(),
      display_name: z.string(),
      owner: Owner,
      health: z.number(),
      max_health: z.number(),
      position: Position,
      ...lockFields,
      is_functional: z.boolean(),
      last_access_time: isoDateTime.nullable(),
      item_count: z.number().int().nullable(),
    })

    .meta({ id: 'Vehicle' }),
);

export const Container = lazySchema(() =>
  z
    .object({
      entity_id: z.string().regex(DECIMAL_ID),
      class_name: z.string(),
      display_name: z.string(),
      custom_name: z.string(),
      owner: Owner,
      base_id: z.number().int().nullable(),
      base_name: z.string().nullable(),
      position: Position,
      ...lockFields,
      is_buried: z.boolean(),
      last_access_time: isoDateTime.nullable(),
      item_count: z.number().int().nullable(),
    })

    .meta({ id: 'Container' }),
);

/** A list op's answer (PROTOCOL §6.5): a page, the position after it, and a total where the route has one. */
export function opPage<T extends z.ZodType>(row: T, withTotal: true): ReturnType<typeof pageWithTotal<T>>;
export function opPage<T extends z.ZodType>(row: T, withTotal: false): ReturnType<typeof pageWithoutTotal<T>>;
export function opPage<T extends z.ZodType>(row: T, withTotal: boolean) {
  return withTotal ? pageWithTotal(row) : pageWithoutTotal(row);
}

function pageWithoutTotal<T extends z.ZodType>(row: T) {
  return z.object({ data: z.array(row), next: z.string().nullable() });
}

function pageWithTotal<T extends z.ZodType>(row: T) {
  return z.object({ data: z.array(row), next: z.string().nullable(), total: z.number().int().nonnegative() });
}

/** The paging part of a list op's arguments. */
export const pageArgs = { after: z.string().nullable(), limit: z.number().int().min(1).max(100) };
