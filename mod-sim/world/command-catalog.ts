/**
 * The simulated game's admin command catalogue: data only (mod-sim/console/ runs the verbs).
 * Verbs are one token; args are positional in the order listed; `values` lists the options of a
 * fixed-choice argument and is empty when the values are dynamic (item classes, players, …).
 */
import type {
  CommandArg,
  CommandCatalog,
  CommandCatalogEntry,
  CommandLevel,
  OutputMode,
  TargetMode,
} from './command-types.ts';
import { compareStrings } from './keyset.ts';
import { SKILL_NAMES } from './vocab/items.ts';

/** Bumped whenever the catalogue below changes shape. */
export const COMMAND_CATALOG_VERSION = 5;

interface ArgOptions {
  completion?: string;
  optional?: boolean;
  repeating?: boolean;
  values?: readonly string[];
}

function arg(
  name: string,
  typeName: string,
  dataType: CommandArg['data_type'],
  description: string,
  options: ArgOptions = {},
): CommandArg {
  return {
    name,
    type_name: typeName,
    description,
    data_type: dataType,
    completion: options.completion ?? (options.values === undefined ? 'none' : 'values'),
    required: options.optional !== true,
    repeating: options.repeating === true,
    values: [...(options.values ?? [])],
  };
}

/** `flags`: O = requires an online player to carry it, S = can spawn directly. */
function verb(
  name: string,
  level: CommandLevel,
  target: TargetMode,
  output: OutputMode,
  flags: '' | 'O' | 'S' | 'OS',
  ...args: CommandArg[]
): CommandCatalogEntry {
  return {
    verb: name,
    level,
    target_mode: target,
    output_mode: output,
    requires_online: flags.includes('O'),
    direct_spawn_capable: flags.includes('S'),
    args,
  };
}

const ON_OFF = ['On', 'Off'];
const CURRENCIES = ['Normal', 'Gold'];
const WEATHERS = ['Sunny', 'Cloudy', 'Rain', 'Storm', 'Fog', 'Snow'];
const ANIMALS = ['Bear', 'Wolf', 'Deer', 'Boar', 'Chicken', 'Goat'];
const ATTRIBUTES = ['Strength', 'Constitution', 'Dexterity', 'Intelligence'];

// Arguments, named once so the table below stays one verb per line.
const topic = arg('topic', 'Verb', 'string', 'Command to explain', { optional: true });
const message = arg('message', 'Text', 'string', 'Words to show', { repeating: true });
const kickReason = arg('reason', 'Text', 'string', 'Shown to the player', {
  optional: true,
  repeating: true,
});
const banHours = arg('hours', 'Integer', 'int', 'Duration; omit for permanent', { optional: true });
const muteMinutes = arg('minutes', 'Integer', 'int', 'Rounded up to whole hours');
const coord = (axis: string): CommandArg => arg(axis, 'Coordinate', 'float', `World ${axis} coordinate`);
const weather = arg('weather', 'Weather', 'string', 'Weather preset', { values: WEATHERS });
const hour = arg('hour', 'Integer', 'int', 'Hour of day, 0 to 23');
const count = (what: string): CommandArg =>
  arg('count', 'Integer', 'int', `Number of ${what}`, { optional: true });
const item = arg('item', 'ItemClass', 'string', 'Item class name', { completion: 'items' });
const vehicleClass = arg('vehicle', 'VehicleClass', 'string', 'Vehicle class name', {
  completion: 'vehicles',
});
const animal = arg('animal', 'Animal', 'string', 'Animal kind', { values: ANIMALS });
const entityId = arg('entity_id', 'EntityId', 'string', 'Vehicle entity id', { completion: 'vehicles' });
const currency = arg('currency', 'Currency', 'string', 'Which balance', { values: CURRENCIES });
const amount = arg('amount', 'Integer', 'int', 'Signed amount to add');
const balance = arg('value', 'Integer', 'int', 'New balance, 0 or more');
const audience = arg('players', 'Audience', 'string', 'Everyone on record (default) or only those online', {
  optional: true,
  values: ['All', 'Online'],
});
const fame = arg('value', 'Decimal', 'float', 'New fame points');
const toggle = arg('state', 'Toggle', 'string', 'On or Off', { values: ON_OFF });
const flagId = arg('flag_id', 'FlagId', 'int', 'Flag to remove', { completion: 'flags' });
const skill = arg('skill', 'Skill', 'string', 'Skill name', { values: SKILL_NAMES });
const skillLevel = arg('level', 'Decimal', 'float', '0.0 to 4.0');
const attribute = arg('attribute', 'Attribute', 'string', 'Attribute name', { values: ATTRIBUTES });
const attributeValue = arg('value', 'Decimal', 'float', '1.0 to 8.0');
const countdown = arg('minutes', 'Integer', 'int', 'Countdown before restart');

const ENTRIES: readonly CommandCatalogEntry[] = [
  verb('Help', 0, 'none', 'text', '', topic),
  verb('Location', 0, 'player', 'text', 'O'),
  verb('Online', 0, 'none', 'text', ''),
  verb('Announce', 1, 'none', 'silent', '', message),
  verb('ListPlayers', 1, 'none', 'list', ''),
  verb('ListSquads', 1, 'none', 'list', ''),
  verb('ListVehicles', 1, 'none', 'list', ''),
  verb('ListFlags', 1, 'player', 'list', ''),
  verb('ShowPlayerInfo', 1, 'player', 'text', ''),
  verb('Kick', 1, 'player', 'text', 'O', kickReason),
  verb('Ban', 1, 'player', 'text', '', banHours),
  verb('Unban', 1, 'player', 'text', ''),
  verb('Mute', 1, 'player', 'text', '', muteMinutes),
  verb('Unmute', 1, 'player', 'text', ''),
  // Moves the target player to x y z: the destination is the arguments, so the target is a player.
  verb('Teleport', 1, 'player', 'text', 'O', coord('x'), coord('y'), coord('z')),
  verb('TeleportTo', 1, 'player', 'text', 'O'),
  verb('TeleportToMe', 1, 'player', 'text', 'O'),
  verb('Heal', 1, 'player', 'text', 'O'),
  verb('Kill', 1, 'player', 'text', 'O'),
  verb('SetWeather', 1, 'none', 'text', 'O', weather),
  verb('SetTime', 1, 'none', 'text', 'O', hour),
  verb('SpawnItem', 1, 'player_or_position', 'text', 'OS', item, count('items')),
  verb('SpawnVehicle', 1, 'player_or_position', 'text', 'OS', vehicleClass),
  verb('SpawnZombie', 1, 'player_or_position', 'text', 'OS', count('zombies')),
  verb('SpawnAnimal', 1, 'player_or_position', 'text', 'OS', animal, count('animals')),
  verb('DestroyVehicle', 1, 'none', 'text', '', entityId),
  verb('ChangeCurrencyBalance', 2, 'player', 'text', 'O', currency, amount),
  verb('SetCurrencyBalance', 2, 'player', 'text', 'O', currency, balance),
  // Bulk changes: no target; a connected player must carry them. The game reports no count.
  verb('ChangeCurrencyBalanceForAll', 2, 'none', 'text', 'O', currency, amount, audience),
  verb('SetCurrencyBalanceForAll', 2, 'none', 'text', 'O', currency, balance, audience),
  verb('SetFamePoints', 2, 'player', 'text', 'O', fame),
  verb('SetGodMode', 2, 'player', 'text', 'O', toggle),
  verb('SetImmortal', 2, 'player', 'text', 'O', toggle),
  verb('SetSuperJump', 2, 'player', 'text', 'O', toggle),
  verb('ClearInventory', 2, 'player', 'text', 'O'),
  verb('DestroyFlag', 2, 'none', 'text', '', flagId),
  verb('SetSkillLevel', 2, 'player', 'text', 'O', skill, skillLevel),
  verb('SetAttribute', 2, 'player', 'text', 'O', attribute, attributeValue),
  verb('SaveWorld', 3, 'none', 'silent', ''),
  verb('RestartServer', 3, 'none', 'text', '', countdown),
  verb('WipeZombies', 3, 'none', 'text', 'O'),
  verb('ReloadConfig', 4, 'none', 'text', ''),
  verb('DumpStats', 4, 'none', 'list', ''),
  verb('ToggleDebugDraw', 4, 'none', 'silent', 'O', toggle),
];

/** A fresh copy of the catalogue, sorted by verb. */
export function commandCatalog(): CommandCatalog {
  const data = ENTRIES.map((entry) => ({
    ...entry,
    args: entry.args.map((a) => ({ ...a, values: [...a.values] })),
  }));
  data.sort((a, b) => compareStrings(a.verb, b.verb));
  return { version: COMMAND_CATALOG_VERSION, data };
}
