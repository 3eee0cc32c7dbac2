/** The route table: the single source of truth for the /v1 surface (ARCHITECTURE.md decision 3). */
import type { AnyRoute } from './define-route.ts';
import { getServer } from './server.ts';

export const ROUTES: readonly AnyRoute[] = [getServer];
