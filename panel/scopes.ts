/**
 * What each API key scope lets a bot do, in one line a person reads, and the presets the key
 * form offers (docs/panel.md, "Keys"). The scope names themselves come from the daemon through
 * the bundler (`MODGATE_SCOPES`); test/panel/scopes.test.ts holds this list to exactly those.
 */

export const SCOPE_HELP: Readonly<Record<string, string>> = {
  'server:read': "See the server's status and its game link (/v1/server).",
  'players:read': 'Look players up and read profiles, inventories and moderation state.',
  'players:read_sensitive': "See players' IP addresses and violations.",
  'players:ban': 'Ban and unban players.',
  'players:mute': 'Mute and unmute players.',
  'players:link': "Link and unlink a player's social account.",
  'economy:read': "Read players' coins and currency and the ledger.",
  'economy:write': "Credit, debit or set one player's coins.",
  'economy:write_all': "Change every player's coins at once (bulk).",
  'currency:write': "Credit, debit or set one player's cash or gold.",
  'currency:write_all': "Change every player's cash or gold at once (bulk).",
  'packs:read': 'See the shop packs and their deliveries.',
  'packs:deliver': 'Deliver a shop pack to a player.',
  'claim_codes:read': 'Look claim codes up.',
  'claim_codes:write': 'Mint and revoke claim codes.',
  'squads:read': 'Browse squads and their members, bases and vehicles.',
  'bases:read': 'Browse bases.',
  'vehicles:read': 'Browse vehicles.',
  'containers:read': 'Browse containers.',
  'commands:execute': 'Run admin commands on the game server.',
  'commands:read': 'See the command catalogue and the command history.',
  'events:read': 'Follow game events live (/v1/events).',
  'webhooks:manage': 'Register and manage webhooks of its own.',
};

/** A named set of scopes for a common kind of bot; choosing one ticks exactly these. */
export interface ScopePreset {
  name: string;
  scopes: readonly string[];
}

export const SCOPE_PRESETS: readonly ScopePreset[] = [
  {
    name: 'Read-only bot',
    scopes: ['server:read', 'players:read', 'economy:read', 'packs:read', 'squads:read', 'events:read'],
  },
  {
    name: 'Moderation bot',
    scopes: ['server:read', 'players:read', 'players:ban', 'players:mute', 'events:read'],
  },
  {
    name: 'Shop bot',
    scopes: [
      'server:read',
      'players:read',
      'economy:read',
      'economy:write',
      'packs:read',
      'packs:deliver',
      'claim_codes:read',
      'claim_codes:write',
    ],
  },
  { name: 'Discord link bot', scopes: ['server:read', 'players:read', 'players:link'] },
  { name: 'Status page', scopes: ['server:read'] },
];
