/**
 * Which roles see each page of the panel (docs/admin.md, "Roles"): a page shows for exactly the
 * roles the admin API lets call the route it reads, so the navigation never offers a page whose
 * first request would be 403. Each page names that route and its `access` as the route declares
 * it (test/panel/page-access.test.ts holds each to its route's); app.ts judges it with the API's
 * own `roleAllows` and `ROLE_SCOPES` (daemon/admin/roles.ts, bundled in as `modgate:roles`).
 */

/**
 * An admin route's `access` (daemon/admin/roles.ts `AdminAccess`), spelled here: panel/ imports
 * no daemon code by path, and the test, which does, checks each value against its route.
 */
export type AdminAccess = { kind: 'owner' } | { kind: 'staff' } | { kind: 'game'; scope: string };

export interface PageAccess {
  /** The GET route under /admin/v1 the page reads first. */
  reads: string;
  access: AdminAccess;
}

const OWNER: AdminAccess = { kind: 'owner' };
const game = (scope: string): AdminAccess => ({
  kind: 'game',
  scope,
});

export const PAGE_ACCESS = {
  overview: { reads: '/admin/v1/status', access: { kind: 'staff' } },
  players: { reads: '/admin/v1/game/players/online', access: game('players:read') },
  world: { reads: '/admin/v1/game/squads', access: game('squads:read') },
  economy: { reads: '/admin/v1/game/economy/transactions', access: game('economy:read') },
  shop: { reads: '/admin/v1/game/packs', access: game('packs:read') },
  console: { reads: '/admin/v1/game/commands/catalog', access: game('commands:read') },
  group: { reads: '/admin/v1/group', access: { kind: 'staff' } },
  keys: { reads: '/admin/v1/keys', access: OWNER },
  plan: { reads: '/admin/v1/plan', access: OWNER },
  webhooks: { reads: '/admin/v1/webhooks', access: OWNER },
  audit: { reads: '/admin/v1/audit', access: OWNER },
  events: { reads: '/admin/v1/events', access: OWNER },
  tokens: { reads: '/admin/v1/tokens', access: OWNER },
} as const satisfies Record<string, PageAccess>;

export type PagePath = keyof typeof PAGE_ACCESS;

/**
 * A write a page offers only to the roles its route allows (the button is not shown to others):
 * the route, `METHOD /admin/v1/…` as it declares itself, and its `access`, held to it by the test.
 */
export interface ActionAccess {
  route: string;
  access: AdminAccess;
}

export const ACTION_ACCESS = {
  groupLift: { route: 'POST /admin/v1/group/sanctions/{id}/lift', access: game('players:ban') },
} as const satisfies Record<string, ActionAccess>;
