/** The route table: the single source of truth for the /v1 surface (docs/openapi.md). */
import { BASE_ROUTES } from './bases.ts';
import { CLAIM_CODE_ROUTES } from './claim-codes.ts';
import { COMMAND_ROUTES } from './commands.ts';
import { CONTAINER_ROUTES } from './containers.ts';
import type { AnyRoute } from '../http/define-route.ts';
import { ECONOMY_ROUTES } from './economy.ts';
import { EVENT_ROUTES } from './events.ts';
import { MODERATION_ROUTES } from './moderation.ts';
import { PACK_ROUTES } from './packs.ts';
import { PLAYER_READ_ROUTES } from './players.ts';
import { getServer } from './server.ts';
import { SOCIAL_ROUTES } from './social.ts';
import { SQUAD_ROUTES } from './squads.ts';
import { VEHICLE_ROUTES } from './vehicles.ts';
import { WEBHOOK_ROUTES } from './webhooks.ts';

export const ROUTES: readonly AnyRoute[] = [
  getServer,
  ...PLAYER_READ_ROUTES,
  ...MODERATION_ROUTES,
  ...SOCIAL_ROUTES,
  ...SQUAD_ROUTES,
  ...BASE_ROUTES,
  ...VEHICLE_ROUTES,
  ...CONTAINER_ROUTES,
  ...COMMAND_ROUTES,
  ...ECONOMY_ROUTES,
  ...PACK_ROUTES,
  ...CLAIM_CODE_ROUTES,
  ...EVENT_ROUTES,
  ...WEBHOOK_ROUTES,
];
