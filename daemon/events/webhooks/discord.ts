/**
 * `--format discord`: events as Discord webhook messages (Discord developer docs, "Execute
 * Webhook" and "Embed Limits"), one embed per event saying what happened, to whom, by whom and
 * why, up to ten events per message. Every text is cut to Discord's limits (title 256,
 * description 4096, field name 256, value 1024, 25 fields, 6000 characters per message), so a
 * long reason never turns a delivery into a 400.
 *
 * Everything taken from an event (player names, reasons, commands, messages) is chosen by players
 * or by whoever holds a key, and Discord renders Markdown in embed descriptions and field values:
 * it is escaped (escapeMarkdown), so a name cannot forge a masked link `[text](url)`, a heading or
 * a mention, and every message says `allowed_mentions: {"parse": []}`, so nobody is pinged.
 */
import type { EventType, StoredEvent } from '../types.ts';

export const DISCORD_LIMITS = Object.freeze({
  embedsPerMessage: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  messageCharacters: 6000,
});

export interface DiscordField {
  name: string;
  value: string;
  inline: boolean;
}

export interface DiscordEmbed {
  title: string;
  description: string;
  color: number;
  timestamp: string;
  fields: DiscordField[];
  footer: { text: string };
}

export interface DiscordMessage {
  content: null;
  embeds: DiscordEmbed[];
  allowed_mentions: { parse: [] };
}

const RED = 0xd83c3e;
const ORANGE = 0xe67e22;
const GREEN = 0x2ecc71;
const GREY = 0x95a5a6;
const BLUE = 0x3498db;

const TITLES: Record<EventType, [string, number]> = {
  'player.joined': ['Player joined', GREEN],
  'player.left': ['Player left', GREY],
  'player.banned': ['Player banned', RED],
  'player.unbanned': ['Player unbanned', GREEN],
  'player.muted': ['Player muted', ORANGE],
  'player.unmuted': ['Player unmuted', GREEN],
  'player.linked': ['Social account linked', BLUE],
  'player.unlinked': ['Social account unlinked', GREY],
  'economy.changed': ['Balance changed', BLUE],
  'pack.delivered': ['Pack delivery', BLUE],
  'claim_code.redeemed': ['Claim code redeemed', BLUE],
  'command.executed': ['Console command', GREY],
  'mod.connected': ['Game server connected', GREEN],
  'mod.disconnected': ['Game server disconnected', RED],
  'group.sanction.applied': ['Group sanction applied', BLUE],
  'group.sanction.failed': ['Group sanction refused by the game', RED],
};

/** One message for as many of `events` (oldest first) as fit; at least the first. */
export function discordMessage(events: readonly StoredEvent[]): { message: DiscordMessage; count: number } {
  const embeds: DiscordEmbed[] = [];
  let characters = 0;
  for (const event of events.slice(0, DISCORD_LIMITS.embedsPerMessage)) {
    const embed = discordEmbed(event);
    const size = embedCharacters(embed);
    if (embeds.length > 0 && characters + size > DISCORD_LIMITS.messageCharacters) break;
    embeds.push(embed);
    characters += size;
  }
  return { message: { content: null, embeds, allowed_mentions: { parse: [] } }, count: embeds.length };
}

export function discordEmbed(event: StoredEvent): DiscordEmbed {
  const [title, color] = TITLES[event.type];
  const who = subjectOf(event.data);
  const by = actorOf(event.data);
  const why = reasonOf(event.data);
  const sentence = [who ? `**${escapeMarkdown(who)}**` : null, by ? `by ${escapeMarkdown(by)}` : null]
    .filter(Boolean)
    .join(' ');
  const fields: DiscordField[] = [];
  if (who) fields.push(field('Player', who, true));
  if (by) fields.push(field('By', by, true));
  if (why) fields.push(field('Reason', why, false));
  fields.push(...detailFields(event.data));
  return {
    title: cut(title, DISCORD_LIMITS.title),
    description: cut(sentence === '' ? title : sentence, 500),
    color,
    timestamp: event.at,
    fields: fields.slice(0, 12),
    footer: { text: `event ${event.id} · ${event.type}` },
  };
}

type Data = Readonly<Record<string, unknown>>;

function record(value: unknown): Data | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : null;
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** `Name (76561198000000001)` from an identity-like object. */
function person(value: unknown): string | null {
  const who = record(value);
  if (!who) return text(value);
  const name = text(who['name']) ?? text(who['char_name']) ?? text(who['platform_name']);
  const id = text(who['platform_id']) ?? text(who['social_id']);
  if (name && id) return `${name} (${id})`;
  return name ?? id;
}

function subjectOf(data: Data): string | null {
  const player = record(data['player']) ?? record(data['target']) ?? record(data['identity']);
  if (player) return person({ name: data['name'] ?? data['char_name'], ...player });
  return person(data['platform_id'] === undefined ? null : data);
}

function actorOf(data: Data): string | null {
  const ban = record(data['ban']);
  return person(data['actor']) ?? person(data['by']) ?? person(ban?.['banned_by']) ?? null;
}

function reasonOf(data: Data): string | null {
  const ban = record(data['ban']);
  return text(data['reason']) ?? text(ban?.['reason']) ?? null;
}

/** The values that tell this event apart, when the payload has them. */
const DETAIL_KEYS: [string, string][] = [
  ['duration', 'Duration'],
  ['duration_unit', 'Unit'],
  ['expires_at', 'Expires'],
  ['asset', 'Asset'],
  ['currency', 'Currency'],
  ['amount', 'Amount'],
  ['balance_after', 'Balance'],
  ['status', 'Status'],
  ['quantity', 'Quantity'],
  ['code', 'Code'],
  ['command', 'Command'],
  ['result', 'Result'],
  ['mod_version', 'Mod version'],
  ['social_id', 'Social id'],
];

function detailFields(data: Data): DiscordField[] {
  const fields: DiscordField[] = [];
  const pack = record(data['pack']);
  const packName = text(pack?.['display_name']) ?? text(pack?.['name']);
  if (packName) fields.push(field('Pack', packName, true));
  for (const [key, label] of DETAIL_KEYS) {
    const value = text(data[key]);
    if (value !== null) fields.push(field(label, value, key !== 'command' && key !== 'result'));
  }
  return fields;
}

/** `value` comes from the event: escaped. `name` is one of this file's labels. */
function field(name: string, value: string, inline: boolean): DiscordField {
  return { name: cut(name, DISCORD_LIMITS.fieldName), value: cut(escapeMarkdown(value), 300), inline };
}

/**
 * Discord's Markdown, neutralised with backslashes (Discord shows an escaped character as is):
 * anywhere, the characters of emphasis, code, spoilers, masked links `[text](url)`, mentions and emoji `<…>`,
 * `@everyone` and autolinks `https:`; at the start of a line, headings, lists and quotes.
 */
const INLINE = /[\\*_~`|[\]<>@:]/g;
const LINE_MARKER = /^(\s*)([#+-])/gm;
const ORDERED_LIST = /^(\s*\d+)\./gm;

export function escapeMarkdown(text: string): string {
  return text
    .replace(INLINE, (char) => `\\${char}`)
    .replace(LINE_MARKER, '$1\\$2')
    .replace(ORDERED_LIST, '$1\\.');
}

/** Cuts to `max` characters (code points kept whole), marking the cut with an ellipsis. */
export function cut(value: string, max: number): string {
  const chars = [...value];
  return chars.length <= max ? value : `${chars.slice(0, max - 1).join('')}…`;
}

function embedCharacters(embed: DiscordEmbed): number {
  return (
    embed.title.length +
    embed.description.length +
    embed.footer.text.length +
    embed.fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0)
  );
}

/** Discord's 429 body: `{"retry_after": seconds, "global": bool, "message": …}`. */
export function discordRetryAfterMs(body: string): number | undefined {
  try {
    const value = (JSON.parse(body) as { retry_after?: unknown }).retry_after;
    return typeof value === 'number' && value >= 0 ? value * 1000 : undefined;
  } catch {
    return undefined;
  }
}
