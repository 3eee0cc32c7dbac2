/**
 * Every admin route (docs/admin.md): one import and one line per resource file, so a new
 * resource is a file and two lines here.
 */
import type { AnyAdminRoute } from '../define-admin-route.ts';
import { statusRoutes } from './status.ts';

export const ADMIN_ROUTES: readonly AnyAdminRoute[] = [...statusRoutes];
