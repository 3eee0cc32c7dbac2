/**
 * Every admin route (docs/admin.md): one import and one line per resource file, so a new
 * resource is a file and two lines here.
 */
import type { AnyAdminRoute } from '../define-admin-route.ts';
import { auditRoutes } from './audit.ts';
import { eventRoutes } from './events.ts';
import { gameRoutes } from './game.ts';
import { groupRoutes } from './group.ts';
import { groupSanctionRoutes } from './group-sanctions.ts';
import { groupFailureRoutes } from './group-failures.ts';
import { keyRoutes } from './keys.ts';
import { reloadRoutes } from './reload.ts';
import { sessionRoutes } from './session.ts';
import { statusRoutes } from './status.ts';
import { switchRoutes } from './switches.ts';
import { tokenRoutes } from './tokens.ts';
import { webhookRoutes } from './webhooks.ts';

// One resource a line, so branches adding resources merge without conflict.
// prettier-ignore
export const ADMIN_ROUTES: readonly AnyAdminRoute[] = [
  ...statusRoutes,
  ...tokenRoutes,
  ...switchRoutes,
  ...sessionRoutes,
  ...keyRoutes,
  ...webhookRoutes,
  ...auditRoutes,
  ...eventRoutes,
  ...reloadRoutes,
  ...gameRoutes,
  ...groupRoutes,
  ...groupSanctionRoutes,
  ...groupFailureRoutes,
];
