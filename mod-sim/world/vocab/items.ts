/**
 * Item, vehicle and container kinds: raw class names (what the game's commands use) beside
 * display names (what the API's type summaries use). Plain data parsed once at load.
 */

export interface ItemKind {
  readonly class: string;
  readonly name: string;
  readonly weight: number;
  readonly maxHealth: number;
  readonly isWeapon: boolean;
  /** Slots for nested items; 0 for an item that holds nothing. */
  readonly capacity: number;
}

export interface AssetKind {
  readonly className: string;
  readonly displayName: string;
  readonly maxHealth: number;
  /** Inventory size range, items. */
  readonly minItems: number;
  readonly maxItems: number;
}

/** `class|display name|weight kg|max health|W (weapon) or capacity` */
const ITEM_TABLE = `
Backpack_Military_01|Military Backpack|1.8|100|12
Backpack_Hiking_02|Hiking Backpack|1.4|100|10
Jacket_Military_01|Military Jacket|1.2|100|6
Pants_Cargo_03|Cargo Pants|0.9|100|4
Vest_Tactical_01|Tactical Vest|2.1|150|6
Pouch_Small_01|Small Pouch|0.2|60|3
Box_FirstAid|First Aid Box|0.4|40|4
Box_Ammo_Small|Small Ammo Box|0.5|80|3
Tin_Cookies|Cookie Tin|0.2|30|2
Weapon_AK47|AK-47|3.9|100|W
Weapon_M1911|M1911|1.1|100|W
Weapon_SVD|SVD Dragunov|4.3|100|W
Weapon_MP5|MP5|2.5|100|W
Weapon_Compound_Bow|Compound Bow|1.6|80|W
Weapon_Machete|Machete|0.8|120|W
Magazine_AK47|AK-47 Magazine|0.4|50|0
Cal_7_62x39mm_Ammobox|7.62x39mm Ammo Box|0.8|20|0
Cal_45_Ammobox|.45 ACP Ammo Box|0.6|20|0
Arrow_Carbon|Carbon Arrow|0.05|20|0
Bandage_Clean|Clean Bandage|0.05|10|0
Painkillers|Painkillers|0.05|10|0
Antibiotics_01|Antibiotics|0.05|10|0
Canned_Beans|Canned Beans|0.45|20|0
Water_Bottle|Water Bottle|1.0|30|0
Energy_Bar|Energy Bar|0.1|10|0
Lockpick|Lockpick|0.05|20|0
Multitool|Multitool|0.3|100|0
Flashlight|Flashlight|0.4|60|0
Battery_AA|AA Battery|0.02|10|0
Lighter|Lighter|0.05|30|0
Rope|Rope|0.6|40|0
Nails_Box|Box of Nails|0.5|20|0
Wristwatch|Wristwatch|0.1|40|0
Map_Village|Village Map|0.01|10|0
`;

/** `class|display name|max health|min items|max items` */
const VEHICLE_TABLE = `
BPC_Dirtbike|Dirtbike|600|0|4
BPC_CityBike|City Bike|300|0|2
BPC_Laika|Laika|1400|0|20
BPC_WolfsWagen|WolfsWagen|1200|0|16
BPC_Rager|Rager|2000|0|30
BPC_Tractor|Tractor|1800|0|6
BPC_Barba|Barba Boat|900|0|12
BPC_Kinglet_Duster|Kinglet Duster|800|0|8
`;

/** `class|display name|max health|min items|max items` */
const CONTAINER_TABLE = `
BP_Chest_Wooden|Wooden Chest|500|0|40
BP_Chest_Metal|Metal Chest|1500|0|60
BP_Locker_Military|Military Locker|1200|0|30
BP_Stash_Buried|Buried Stash|200|0|15
BP_Fridge_Improvised|Improvised Fridge|300|0|20
BP_Safe_Small|Small Safe|3000|0|10
BP_Crate_Ammo|Ammo Crate|800|0|25
`;

function rows(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) => line.split('|'));
}

export const ITEM_KINDS: readonly ItemKind[] = rows(ITEM_TABLE).map(([cls, name, weight, health, tail]) => ({
  class: cls ?? '',
  name: name ?? '',
  weight: Number(weight),
  maxHealth: Number(health),
  isWeapon: tail === 'W',
  capacity: tail === 'W' ? 0 : Number(tail),
}));

function assetKinds(table: string): readonly AssetKind[] {
  return rows(table).map(([className, displayName, health, min, max]) => ({
    className: className ?? '',
    displayName: displayName ?? '',
    maxHealth: Number(health),
    minItems: Number(min),
    maxItems: Number(max),
  }));
}

export const VEHICLE_KINDS = assetKinds(VEHICLE_TABLE);
export const CONTAINER_KINDS = assetKinds(CONTAINER_TABLE);

/** Kinds that hold other items, most capacious first. */
export const CONTAINER_ITEM_KINDS = ITEM_KINDS.filter((kind) => kind.capacity > 0);
export const WEAPON_KINDS = ITEM_KINDS.filter((kind) => kind.isWeapon);
export const LOOSE_ITEM_KINDS = ITEM_KINDS.filter((kind) => kind.capacity === 0);

/** Custom names owners give containers (empty = unnamed, the common case). */
export const CONTAINER_LABELS = ['Ammo', 'Meds', 'Food', 'Loot', 'Tools', 'Guns', 'Do not touch', 'Stash'];

export const SKILL_NAMES = [
  'Archery',
  'Aviation',
  'Awareness',
  'Brawling',
  'Camouflage',
  'Cooking',
  'Demolition',
  'Driving',
  'Endurance',
  'Engineering',
  'Farming',
  'Handgun',
  'Medical',
  'Motorcycle',
  'Rifles',
  'Running',
  'Sniping',
  'Stealth',
  'Survival',
  'Thievery',
] as const;
