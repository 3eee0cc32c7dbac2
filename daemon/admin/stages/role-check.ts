/**
 * The admin plane's role stage (docs/admin.md, "Roles"), right after the route is known: a
 * caller whose role does not allow the route's `access` is refused 403 `forbidden` before its
 * body is read, whatever the panel shows, so staff are held to their role by the API itself.
 */
import { ApiError } from '../../http/api-error.ts';
import type { AnyAdminRoute } from '../define-admin-route.ts';
import { type AdminRole, roleAllows } from '../roles.ts';

export function checkRole(route: AnyAdminRoute, role: AdminRole): void {
  if (roleAllows(role, route.access)) return;
  const needs = route.access.kind === 'game' ? `the ${route.access.scope} scope` : 'the owner role';
  throw new ApiError('forbidden', `A ${role} may not ${route.method} ${route.path}: it needs ${needs}.`, {
    details: { role, access: route.access.kind === 'game' ? route.access.scope : route.access.kind },
  });
}
