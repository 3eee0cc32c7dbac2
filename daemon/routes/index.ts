/** The route table: the single source of truth for the /v1 surface (ARCHITECTURE.md decision 3). */
import type { AnyRoute } from './define-route.ts';
import { MODERATION_ROUTES } from './moderation.ts';
import { PLAYER_READ_ROUTES } from './players.ts';
import { getServer } from './server.ts';
import { SOCIAL_ROUTES } from './social.ts';

export const ROUTES: readonly AnyRoute[] = [
  getServer,
  ...PLAYER_READ_ROUTES,
  ...MODERATION_ROUTES,
  ...SOCIAL_ROUTES,
];
