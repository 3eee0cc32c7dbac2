/**
 * The panel shows a page to the roles whose access covers the route it reads (panel/page-access.ts):
 * each page's `access` is its route's own, so a role never sees a page the API refuses it.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '../../daemon/admin/routes/index.ts';
import { roleAllows, type AdminAccess, type AdminRole } from '../../daemon/admin/roles.ts';
import { ACTION_ACCESS, PAGE_ACCESS } from '../../panel/page-access.ts';

describe("the panel's page roles", () => {
  it.each(Object.entries(PAGE_ACCESS))(
    'gives the %s page the access of the route it reads',
    (_page, entry) => {
      const route = ADMIN_ROUTES.find(
        (candidate) => candidate.method === 'GET' && candidate.path === entry.reads,
      );
      expect(route, `GET ${entry.reads} is an admin route`).toBeDefined();
      expect(entry.access).toEqual(route?.access);
    },
  );

  it('shows a moderator and a viewer the game pages their scopes read, and an owner every page', () => {
    const shown = (role: AdminRole) =>
      Object.entries(PAGE_ACCESS)
        // The first test holds each scope to a real one.
        .filter(([, entry]) => roleAllows(role, entry.access as AdminAccess))
        .map(([page]) => page);
    expect(shown('owner')).toEqual(Object.keys(PAGE_ACCESS));
    expect(shown('moderator')).toEqual(['overview', 'players', 'world', 'group']);
    expect(shown('viewer')).toEqual(['overview', 'players', 'world', 'group']);
  });

  it.each(Object.entries(ACTION_ACCESS))('gives the %s button the access of its route', (_action, entry) => {
    const [method, path] = entry.route.split(' ');
    const route = ADMIN_ROUTES.find((candidate) => candidate.method === method && candidate.path === path);
    expect(route, `${entry.route} is an admin route`).toBeDefined();
    expect(entry.access).toEqual(route?.access);
  });
});
