/** Word lists for people and squads. Plain data; generators combine them with a seeded Rng. */
import type { Rng } from '../rng.ts';

/** Space-separated words to a list (keeps word lists compact under the formatter). */
function words(text: string): readonly string[] {
  return text.split(' ');
}

export const FIRST_NAMES = words(
  'Aleks Anna Boris Carla Dmitri Elena Felix Greta Hugo Irina Jonas Katya Lars Mila Niko Olga Pavel ' +
    'Quinn Rosa Sergei Tomas Uma Viktor Wanda Xenia Yuri Zora Marek Lena Ivo Jack Maya Leo Nina Oskar ' +
    'Petra Rafael Sofia Theo Vera',
);

export const LAST_NAMES = words(
  'Novak Petrov Kowalski Horvat Ivanova Schmidt Berg Dvorak Lindqvist Moreau Rossi Silva Tanaka ' +
    'Varga Weber Young Zielinski Kovac Marin Orlov Popescu Quist Reyes Stone Torres Ulrich Volkov ' +
    'Walsh Hale Blackwood Crane Frost Grey Hunter Kane Locke Mercer North Pike',
);

const TAG_FIRST = words(
  'Dark Silent Iron Lone Mad Red Shadow Frost Ghost Wild Grim Lucky Rusty Toxic Swift Crazy Old Big ' +
    'Little Night Storm Dead',
);

const TAG_SECOND = words(
  'Wolf Bear Fox Hawk Viper Raven Sniper Hunter Ranger Medic Miner Rat Tiger Owl Badger Moose Pilot ' +
    'Drifter Nomad Scav',
);

const SQUAD_FIRST = words(
  'Iron Black Red Northern Lost Silent Rusty Wild Broken Golden Grey Frozen Burning Hidden Last ' +
    'Bloody Free Night Swamp Coastal',
);

const SQUAD_SECOND = words(
  'Wolves Ravens Legion Brotherhood Company Syndicate Outlaws Rangers Nomads Reapers Hunters Vipers ' +
    'Guard Drifters Pack Tribe Crew Order',
);

/** A character name: `First Last`. */
export function characterName(rng: Rng): string {
  return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
}

/** A platform display name in one of the shapes gamers use. */
export function platformName(rng: Rng): string {
  const first = rng.pick(TAG_FIRST);
  const second = rng.pick(TAG_SECOND);
  switch (rng.int(0, 4)) {
    case 0:
      return `${first}${second}`;
    case 1:
      return `${first}${second}${rng.int(1, 99)}`;
    case 2:
      return `xX_${second}_Xx`;
    case 3:
      return `${second.toLowerCase()}${rng.int(1970, 2012)}`;
    default:
      return `${first}_${second}`;
  }
}

export function squadName(rng: Rng): string {
  return `${rng.pick(SQUAD_FIRST)} ${rng.pick(SQUAD_SECOND)}`;
}

/** Names of systems that act without a moderator platform id (spec: ban.banned_by). */
export const SYSTEM_MODERATORS = words('Console AntiCheat Panel Legacy import');
