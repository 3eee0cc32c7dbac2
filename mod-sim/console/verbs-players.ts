/**
 * Verbs that act on one connected player's body and character: Teleport, TeleportTo,
 * TeleportToMe, Heal, Kill, the three toggles, ClearInventory, SetSkillLevel, SetAttribute,
 * SetFamePoints. Each changes the world (live state, survival, inventory, skills, attributes,
 * fame), so the next player read shows it.
 */
import type { Attributes, LiveState, Player, Position } from '../world/index.ts';
import { ok, refused, type VerbBehaviour, type VerbRun } from './types.ts';
import { isPlayer, onlineSubject, playerLabel, positionText } from './verb-helpers.ts';

/** How far from the origin a position may be on the map (x and y), and the height band (z). */
export const MAP_HALF_WIDTH = 1_000_000;
export const MAP_Z = { min: -10_000, max: 100_000 } as const;

export function onMap(position: Position): boolean {
  return (
    Math.abs(position.x) <= MAP_HALF_WIDTH &&
    Math.abs(position.y) <= MAP_HALF_WIDTH &&
    position.z >= MAP_Z.min &&
    position.z <= MAP_Z.max
  );
}

const live = (player: Player): LiveState => player.live as LiveState;

const teleport: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const to = { x: run.args.number('x'), y: run.args.number('y'), z: run.args.number('z') };
  if (!onMap(to)) return refused(`Position ${positionText(to)} is outside the map`);
  live(player).position = to;
  return ok(`Teleported ${playerLabel(player)} to ${positionText(to)}`);
};

/** The admin running the command in game; the API, the panel and tasks have no body to move. */
function inGameCaller(run: VerbRun): Player | undefined {
  const caller = run.request.caller;
  return caller?.live === null ? undefined : caller;
}

const teleportTo: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const caller = inGameCaller(run);
  if (caller === undefined) return refused(`${run.entry.verb} moves the admin who runs it: run it in game`);
  live(caller).position = { ...live(player).position };
  return ok(`Teleported ${playerLabel(caller)} to ${playerLabel(player)}`);
};

const teleportToMe: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const caller = inGameCaller(run);
  if (caller === undefined) return refused(`${run.entry.verb} needs an admin in game to bring the player to`);
  live(player).position = { ...live(caller).position };
  return ok(`Teleported ${playerLabel(player)} to ${playerLabel(caller)}`);
};

const heal: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  Object.assign(live(player), { alive: true, conscious: true });
  Object.assign(run.world.players.details(player).survival, {
    health: 100,
    stamina: 100,
    bleeding: false,
    infected: false,
    broken_limbs: 0,
  });
  return ok(`Healed ${playerLabel(player)}`);
};

const kill: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  if (!live(player).alive) return refused(`${playerLabel(player)} is already dead`);
  Object.assign(live(player), { alive: false, conscious: false });
  run.world.players.details(player).survival.health = 0;
  return ok(`Killed ${playerLabel(player)}`);
};

/** A toggle verb: sets one live flag on or off. */
function toggle(flag: 'immortal' | 'super_jump', label: string): VerbBehaviour {
  return (run) => {
    const player = onlineSubject(run);
    if (!isPlayer(player)) return player;
    const on = run.args.text('state') === 'On';
    live(player)[flag] = on;
    return ok(`${label} ${on ? 'enabled' : 'disabled'} for ${playerLabel(player)}`);
  };
}

const clearInventory: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const items = run.world.players.inventory(player);
  const removed = items.length;
  items.length = 0;
  live(player).item_in_hands = null;
  return ok(`Removed ${removed} item(s) from ${playerLabel(player)}`);
};

const setSkillLevel: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const level = run.args.number('level');
  if (level < 0 || level > 4) return refused(`Skill level ${level} is outside 0.0 to 4.0`);
  const skill = run.args.text('skill');
  run.world.players.details(player).skills[skill] = level;
  return ok(`Set ${skill} of ${playerLabel(player)} to ${level}`);
};

const setAttribute: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const value = run.args.number('value');
  if (value < 1 || value > 8) return refused(`Attribute value ${value} is outside 1.0 to 8.0`);
  const attribute = run.args.text('attribute');
  player.attributes[attribute.toLowerCase() as keyof Attributes] = value;
  return ok(`Set ${attribute} of ${playerLabel(player)} to ${value}`);
};

const setFamePoints: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  const value = run.args.number('value');
  if (value < 0) return refused(`Fame points cannot be negative (${value})`);
  player.fame_points = value;
  return ok(`Set fame points of ${playerLabel(player)} to ${value}`);
};

export const PLAYER_VERBS: Readonly<Record<string, VerbBehaviour>> = {
  Teleport: teleport,
  TeleportTo: teleportTo,
  TeleportToMe: teleportToMe,
  Heal: heal,
  Kill: kill,
  SetGodMode: toggle('immortal', 'God mode'),
  SetImmortal: toggle('immortal', 'Immortality'),
  SetSuperJump: toggle('super_jump', 'Super jump'),
  ClearInventory: clearInventory,
  SetSkillLevel: setSkillLevel,
  SetAttribute: setAttribute,
  SetFamePoints: setFamePoints,
};
