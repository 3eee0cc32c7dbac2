/**
 * Staff roles on the admin API (docs/admin.md, "Roles"): who may call which admin route. A role
 * belongs to an admin token (and so to the panel sessions made from it); admin.sock is the host's
 * owner. Every admin route declares what it needs (`AdminRouteSpec.access`) and the admin
 * pipeline refuses a caller whose role does not allow it (403 `forbidden`), so a moderator's
 * token is held to its role by the API itself, whatever a page shows.
 *
 * The game's operations are classed by the /v1 scope they need, so a role is a set of scopes
 * from the same catalogue keys use: one vocabulary for what a bot and a staff member may do.
 */
import { SCOPES, type Scope } from '../scopes.ts';

export const ADMIN_ROLES = ['owner', 'moderator', 'viewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/**
 * What an admin route needs:
 * - `owner`: the gateway itself (keys, plan, the API switch, webhooks, admin tokens, audit, reload);
 * - `staff`: what every signed-in role needs to use the panel at all (its own session, status);
 * - `game`: a game operation, allowed to the roles whose scopes include `scope`.
 */
export type AdminAccess = { kind: 'owner' } | { kind: 'staff' } | { kind: 'game'; scope: Scope };

/** The game scopes of each role. An owner has every scope. */
export const ROLE_SCOPES: Readonly<Record<AdminRole, ReadonlySet<Scope>>> = {
  owner: new Set(SCOPES),
  moderator: new Set<Scope>([
    'server:read',
    'players:read',
    'players:read_sensitive',
    'players:ban',
    'players:mute',
    'squads:read',
    'bases:read',
    'vehicles:read',
    'containers:read',
  ]),
  viewer: new Set<Scope>([
    'server:read',
    'players:read',
    'squads:read',
    'bases:read',
    'vehicles:read',
    'containers:read',
  ]),
};

/** Whether `role` may call a route that needs `access`. */
export function roleAllows(role: AdminRole, access: AdminAccess): boolean {
  if (access.kind === 'staff') return true;
  if (access.kind === 'owner') return role === 'owner';
  return ROLE_SCOPES[role].has(access.scope);
}
