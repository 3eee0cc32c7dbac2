/**
 * Bases, vehicles and containers with their indexes: by flag id and entity id (the sorted lists
 * the list endpoints page through), by base id, and by owner profile id. Entity ids sort by
 * numeric value as decimal strings. Inventories are derived on first read and memoised.
 */
import type { Base, Container, OwnedAssets, Vehicle } from './asset-types.ts';
import { CONTAINER_KIND_BY_CLASS, VEHICLE_KIND_BY_CLASS } from './gen-assets.ts';
import type { GeneratedAssets } from './gen-assets.ts';
import { IndexedList } from './indexed-list.ts';
import { deriveInventory } from './inventory.ts';
import { compareDecimalStrings, compareNumbers } from './keyset.ts';
import type { InventoryItem, Owner } from './types.ts';

/** The [start, end) range of `profileId`'s assets in an array grouped by owner, ascending. */
interface Owned {
  owner: { profile_id: number };
}

function ownerRange(assets: readonly Owned[], profileId: number): [number, number] {
  const bound = (strict: boolean): number => {
    let low = 0;
    let high = assets.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const id = (assets[mid] as Owned).owner.profile_id;
      if (id < profileId || (strict && id === profileId)) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  return [bound(false), bound(true)];
}

export class AssetStore {
  readonly bases: IndexedList<Base, number>;
  readonly vehicles: IndexedList<Vehicle, string>;
  readonly containers: IndexedList<Container, string>;
  readonly #basesById = new Map<number, Base>();
  /** Generation order, which is grouped by owner profile id (ascending): the owner index. */
  readonly #generated: GeneratedAssets;
  readonly #inventories = new Map<string, InventoryItem[]>();
  /** Character name → profile ids of the asset owners so named, ascending; built on first use. */
  #ownerNames: Map<string, number[]> | undefined;
  readonly #seed: number;

  constructor(seed: number, generated: GeneratedAssets) {
    this.#seed = seed;
    this.#generated = generated;
    this.bases = new IndexedList(generated.bases, (b) => b.flag_id, compareNumbers);
    this.vehicles = new IndexedList(generated.vehicles, (v) => v.entity_id, compareDecimalStrings);
    this.containers = new IndexedList(generated.containers, (c) => c.entity_id, compareDecimalStrings);
    for (const base of generated.bases) this.#basesById.set(base.base_id, base);
  }

  baseByBaseId(baseId: number): Base | undefined {
    return this.#basesById.get(baseId);
  }

  /** What one player owns, in generation order: O(log n) by binary search on the owner index. */
  ownedBy(profileId: number): OwnedAssets {
    const slice = <T extends Owned>(assets: T[]): T[] => assets.slice(...ownerRange(assets, profileId));
    const { bases, vehicles, containers } = this.#generated;
    return { bases: slice(bases), vehicles: slice(vehicles), containers: slice(containers) };
  }

  /**
   * Profile ids of the players named exactly `name` who own at least one asset, ascending: the
   * index behind the exact `owner_name` filters. Built on first use in O(n); character names do
   * not change, and a player created later owns nothing, so it never goes stale.
   */
  ownersNamed(name: string): readonly number[] {
    if (this.#ownerNames === undefined) {
      const index = new Map<string, Set<number>>();
      const add = ({ owner }: { owner: Owner }): void => {
        index.set(owner.name, (index.get(owner.name) ?? new Set<number>()).add(owner.profile_id));
      };
      const { bases, vehicles, containers } = this.#generated;
      bases.forEach(add);
      vehicles.forEach(add);
      containers.forEach(add);
      this.#ownerNames = new Map([...index].map(([key, ids]) => [key, [...ids].sort(compareNumbers)]));
    }
    return this.#ownerNames.get(name) ?? [];
  }

  vehicleInventory(vehicle: Vehicle): InventoryItem[] {
    const kind = VEHICLE_KIND_BY_CLASS.get(vehicle.class_name);
    return this.#inventory('vehicle', vehicle.entity_id, kind && [kind.minItems, kind.maxItems]);
  }

  containerInventory(container: Container): InventoryItem[] {
    const kind = CONTAINER_KIND_BY_CLASS.get(container.class_name);
    return this.#inventory('container', container.entity_id, kind && [kind.minItems, kind.maxItems]);
  }

  /** Spec `/vehicles/types`: display name → count. */
  vehicleTypes(): Record<string, number> {
    return countBy(this.vehicles, (v) => v.display_name);
  }

  /** Spec `/containers/types`: display name → count. */
  containerTypes(): Record<string, number> {
    return countBy(this.containers, (c) => c.display_name);
  }

  #inventory(
    kind: 'vehicle' | 'container',
    entityId: string,
    range: readonly [number, number] | undefined,
  ): InventoryItem[] {
    let items = this.#inventories.get(entityId);
    if (items === undefined) {
      const ordinal = this.#ordinalOf(
        kind === 'vehicle' ? this.#generated.vehicles : this.#generated.containers,
        entityId,
      );
      items = ordinal < 0 ? [] : deriveInventory(this.#seed, kind, ordinal, range);
      this.#inventories.set(entityId, items);
    }
    return items;
  }

  /** Generation position of an asset (the seed of its inventory); -1 for one added later. */
  #ordinalOf(assets: readonly (Vehicle | Container)[], entityId: string): number {
    const asset = this.vehicles.get(entityId) ?? this.containers.get(entityId);
    if (asset === undefined) return -1;
    const [start, end] = ownerRange(assets, asset.owner.profile_id);
    for (let i = start; i < end; i++) if (assets[i] === asset) return i;
    return -1;
  }
}

function countBy<T>(items: Iterable<T>, label: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const key = label(item);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
