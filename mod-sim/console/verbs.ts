/**
 * Every verb of the world's catalogue and its behaviour (one table per concern). The catalogue is
 * data (world/command-catalog.ts); this is what the game does when a verb runs.
 */
import type { VerbBehaviour } from './types.ts';
import { ECONOMY_VERBS } from './verbs-economy.ts';
import { INFO_VERBS } from './verbs-info.ts';
import { MODERATION_VERBS } from './verbs-moderation.ts';
import { PLAYER_VERBS } from './verbs-players.ts';
import { WORLD_VERBS } from './verbs-world.ts';

export const VERB_BEHAVIOURS: Readonly<Record<string, VerbBehaviour>> = {
  ...INFO_VERBS,
  ...MODERATION_VERBS,
  ...PLAYER_VERBS,
  ...ECONOMY_VERBS,
  ...WORLD_VERBS,
};
