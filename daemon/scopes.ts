/**
 * The spec's scopes (docs/data-dir.md#keysjson), in the spec's order, then modgate's own
 * additions for push events (docs/events.md).
 */
export const SCOPES = [
  'server:read',
  'players:read',
  'players:read_sensitive',
  'players:ban',
  'players:mute',
  'players:link',
  'economy:read',
  'economy:write',
  'economy:write_all',
  'currency:write',
  'currency:write_all',
  'packs:read',
  'packs:deliver',
  'claim_codes:read',
  'claim_codes:write',
  'squads:read',
  'bases:read',
  'vehicles:read',
  'containers:read',
  'commands:execute',
  'commands:read',
  'events:read',
  'webhooks:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
