/**
 * Verbs that only read: Help, Online, Location, ListPlayers, ListSquads, ListVehicles, ListFlags,
 * ShowPlayerInfo, DumpStats. List output is one title line and up to 50 rows.
 */
import { usage } from './args.ts';
import { consoleStateOf } from './state.ts';
import { ok, refused, type VerbBehaviour } from './types.ts';
import {
  isPlayer,
  listText,
  onlineSubject,
  playerLabel,
  positionText,
  subjectPlayer,
} from './verb-helpers.ts';

const help: VerbBehaviour = ({ world, args, request }) => {
  const catalog = world.commands.catalog.data;
  if (args.has('topic')) {
    const topic = args.text('topic').replace(/^#/, '').toLowerCase();
    const entry = catalog.find((e) => e.verb.toLowerCase() === topic);
    if (entry === undefined) return refused(`Unknown command '${args.text('topic')}'`);
    const lines = entry.args.map((a) => {
      const options = a.values.length > 0 ? ` (${a.values.join(', ')})` : '';
      return `  ${a.name}: ${a.description}${options}`;
    });
    return ok([`Usage: ${usage(entry)}`, ...lines].join('\n'));
  }
  const verbs = catalog.filter((e) => e.level <= request.rank).map((e) => `#${e.verb}`);
  return ok(`Commands: ${verbs.join(' ')}`);
};

const online: VerbBehaviour = ({ world }) => {
  const count = world.players.onlineCount();
  return ok(`${count} player${count === 1 ? '' : 's'} online`);
};

const location: VerbBehaviour = (run) => {
  const player = onlineSubject(run);
  if (!isPlayer(player)) return player;
  return ok(`${playerLabel(player)} is at ${positionText(player.live!.position)}`);
};

const listPlayers: VerbBehaviour = ({ world }) => {
  const lines = world.players.online().map((p) => `${playerLabel(p)} ping ${p.live?.ping ?? 0}`);
  return ok(listText(`${lines.length} players online`, lines));
};

const listSquads: VerbBehaviour = ({ world }) => {
  const squads = world.squads.values();
  const lines = squads.map((s) => `[${s.id}] ${s.name}: ${s.members.length} members, score ${s.score}`);
  return ok(listText(`${squads.length} squads`, lines));
};

const listVehicles: VerbBehaviour = ({ world }) => {
  const vehicles = world.assets.vehicles.values();
  const lines = vehicles.map((v) => `${v.entity_id} ${v.class_name} owner ${v.owner.name}`);
  return ok(listText(`${vehicles.length} vehicles`, lines));
};

const listFlags: VerbBehaviour = (run) => {
  const player = subjectPlayer(run);
  if (!isPlayer(player)) return player;
  const bases = run.world.assets.ownedBy(player.user_profile_id).bases;
  const lines = bases.map((b) => `Flag ${b.flag_id} base ${b.base_id} at ${positionText(b.position)}`);
  return ok(listText(`${bases.length} flags owned by ${playerLabel(player)}`, lines));
};

const showPlayerInfo: VerbBehaviour = (run) => {
  const player = subjectPlayer(run);
  if (!isPlayer(player)) return player;
  return ok(
    [
      `${playerLabel(player)} aka ${player.platform_name}`,
      `Social: ${player.social_id ?? 'not linked'}`,
      `Online: ${player.online ? 'yes' : 'no'}, last seen ${player.last_seen}`,
      `Money: ${player.money}, gold: ${player.gold}, fame: ${player.fame_points}`,
      `Squad: ${player.squad === null ? 'none' : player.squad.name}`,
    ].join('\n'),
  );
};

const dumpStats: VerbBehaviour = ({ world }) => {
  const state = consoleStateOf(world);
  const lines = [
    `players ${world.players.size}`,
    `online ${world.players.onlineCount()}`,
    `squads ${world.squads.length}`,
    `bases ${world.assets.bases.length}`,
    `vehicles ${world.assets.vehicles.length}`,
    `containers ${world.assets.containers.length}`,
    `zombies ${state.zombies}`,
    `history ${world.commands.history.length}`,
  ];
  return ok(listText('Server statistics', lines));
};

export const INFO_VERBS: Readonly<Record<string, VerbBehaviour>> = {
  Help: help,
  Online: online,
  Location: location,
  ListPlayers: listPlayers,
  ListSquads: listSquads,
  ListVehicles: listVehicles,
  ListFlags: listFlags,
  ShowPlayerInfo: showPlayerInfo,
  DumpStats: dumpStats,
};
