/**
 * What a pack puts into the game when it is delivered: items into the player's inventory, a
 * vehicle spawned beside the player, bank cash or gold, or an account unlock (a boost or a
 * skin). The catalogue record (`GET /v1/packs`, docs/packs.md) does not show contents; the
 * game keeps them per pack. Here they follow the pack's template slug, so `gold-100-2` (a second
 * edition) holds what `gold-100` holds. docs/packs.md has the table.
 */
import type { Pack } from '../world/index.ts';

export type PackPart =
  | { kind: 'item'; class: string; count: number }
  | { kind: 'vehicle'; class: string }
  | { kind: 'currency'; asset: 'cash' | 'gold'; amount: number }
  | { kind: 'unlock'; name: string };

const item = (cls: string, count = 1): PackPart => ({ kind: 'item', class: cls, count });
const vehicle = (cls: string): PackPart => ({ kind: 'vehicle', class: cls });
const cash = (amount: number): PackPart => ({ kind: 'currency', asset: 'cash', amount });
const gold = (amount: number): PackPart => ({ kind: 'currency', asset: 'gold', amount });
const unlock = (name: string): PackPart => ({ kind: 'unlock', name });

/** Contents by template slug (mod-sim/world/gen-packs.ts). Item classes are the world's vocabulary. */
export const PACK_CONTENTS: Readonly<Record<string, readonly PackPart[]>> = {
  'ak47-bundle': [item('Weapon_AK47'), item('Magazine_AK47', 3)],
  'sniper-kit': [item('Weapon_SVD'), item('Cal_7_62x39mm_Ammobox', 2)],
  'medical-crate': [
    item('Box_FirstAid'),
    item('Bandage_Clean', 4),
    item('Painkillers', 2),
    item('Antibiotics_01'),
  ],
  'builder-tools': [item('Nails_Box', 2), item('Rope'), item('Multitool')],
  'gold-100': [gold(100)],
  'gold-500': [gold(500)],
  'cash-50k': [cash(50_000)],
  dirtbike: [vehicle('BPC_Dirtbike')],
  laika: [vehicle('BPC_Laika')],
  'barba-boat': [vehicle('BPC_Barba')],
  'starter-kit': [
    item('Jacket_Military_01'),
    item('Pants_Cargo_03'),
    item('Canned_Beans', 2),
    item('Water_Bottle'),
    item('Weapon_Machete'),
    cash(1_000),
  ],
  'raid-kit': [item('Lockpick', 5), item('Flashlight'), item('Battery_AA', 2)],
  'survival-kit': [item('Water_Bottle', 2), item('Canned_Beans', 2), item('Lighter')],
  'fame-boost-1h': [unlock('fame_boost_1h')],
  'xp-boost-24h': [unlock('skill_boost_24h')],
  'camo-jacket': [item('Jacket_Military_01')],
  'golden-ak': [unlock('skin_golden_ak')],
};

/** A later edition's slug is its template's plus `-N`: `gold-100-2`. */
const EDITION = /-[0-9]+$/;

/**
 * The parts one unit of `pack` delivers. A slug outside the table (a pack a mod author added)
 * holds a single unlock named after it, which always lands.
 */
export function packContents(pack: Pick<Pack, 'name'>): readonly PackPart[] {
  const exact = PACK_CONTENTS[pack.name];
  if (exact !== undefined) return exact;
  const template = PACK_CONTENTS[pack.name.replace(EDITION, '')];
  return template ?? [unlock(pack.name)];
}
