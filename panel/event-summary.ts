/**
 * One line per event saying what happened, from its type and payload (docs/events.md,
 * "Events"): "Hugo Dvorak joined", "76561190551920056 banned until 2026-11-30 08:06:53". The
 * payload's fields may grow within v1, so a field missing or of another type reads as "?" and an
 * unknown type falls back to its name; the JSON is always one click away on the Events page.
 */
import { when } from './ui.ts';

type Data = Record<string, unknown>;

export function summarize(type: string, data: Data): string {
  const line = SUMMARIES[type];
  return line === undefined ? type : line(data);
}

const SUMMARIES: Record<string, (data: Data) => string> = {
  'player.joined': (d) => `${text(d['char_name']) || player(d)} joined`,
  'player.left': (d) => `${player(d)} left`,
  'player.banned': (d) => `${player(d)} banned${until(field(d, 'ban'))}${by(field(d, 'ban')['banned_by'])}`,
  'player.unbanned': (d) => `${player(d)} unbanned${by(d['unbanned_by'])}`,
  'player.muted': (d) => `${player(d)} muted${until(field(d, 'mute'))}${by(d['muted_by'])}`,
  'player.unmuted': (d) => `${player(d)} unmuted${by(d['unmuted_by'])}`,
  'player.linked': (d) => `${player(d)} linked social account ${text(field(d, 'player')['social_id'])}`,
  'player.unlinked': (d) => `${player(d)} unlinked social account ${text(d['social_id'])}`,
  'economy.changed': (d) => {
    const amount = d['mode'] === 'set' ? `set to ${text(d['amount'])}` : signed(d['amount']);
    return `${text(d['asset'])} ${amount} for ${player(d)}, balance ${text(d['balance_after'])}`;
  },
  'pack.delivered': (d) => `Pack ${text(d['pack_id'] ?? d['pack'])} to ${player(d)}: ${text(d['status'])}`,
  'claim_code.redeemed': (d) =>
    `${player(d)} redeemed a code for pack ${text(d['pack'])}: ${text(d['status'])}`,
  'command.executed': (d) => `${text(d['command'])} → ${text(d['result'])}`,
  'mod.connected': (d) =>
    `Game mod ${text(d['mod_version'])} connected (protocol ${text(d['protocol_version'])})`,
  'mod.disconnected': (d) => `Game mod disconnected: ${text(d['reason']) || `code ${text(d['code'])}`}`,
  'group.sanction.applied': (d) =>
    `Group ${text(d['action'])} of ${text(d['platform_id'])} applied (${origin(d)})`,
  'group.sanction.failed': (d) =>
    `Group ${text(d['action'])} of ${text(d['platform_id'])} refused by the game: ${text(d['error'])}`,
};

function origin(data: Data): string {
  const from = field(data, 'origin');
  return `from ${text(from['name'] ?? from['server_id'])}`;
}

function field(data: Data, name: string): Data {
  const value = data[name];
  return typeof value === 'object' && value !== null ? (value as Data) : {};
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '?';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The player's name where the payload has one, else their platform id. */
function player(data: Data): string {
  const identity = field(data, 'player');
  const name = identity['name'] ?? data['char_name'];
  return typeof name === 'string' && name !== '' ? name : text(identity['platform_id']);
}

function by(actor: unknown): string {
  if (typeof actor !== 'object' || actor === null) return '';
  const fields = actor as Data;
  return ` by ${text(fields['name'] ?? fields['platform_id'])}`;
}

function until(sanction: Data): string {
  if (sanction['permanent'] === true) return ' permanently';
  const expires = sanction['expires_at'];
  return typeof expires === 'string' ? ` until ${when(expires)}` : '';
}

function signed(amount: unknown): string {
  return typeof amount === 'number' && amount >= 0 ? `+${amount}` : text(amount);
}
