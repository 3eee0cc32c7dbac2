/**
 * Every admin route (docs/admin.md): one import and one line per resource file, so a new
 * resource is a file and two lines here.
 */
import type { AnyAdminRoute } from '../define-admin-route.ts';
import { auditRoutes } from './audit.ts';
import { eventRoutes } from './events.ts';
import { statusRoutes } from './status.ts';
import { webhookRoutes } from './webhooks.ts';

export const ADMIN_ROUTES: readonly AnyAdminRoute[] = [
  ...statusRoutes,
  ...webhookRoutes,
  ...auditRoutes,
  ...eventRoutes,
];
