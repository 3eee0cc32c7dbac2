/** Handlers for the server ops (protocol/ops/server.ts). */
import type { OpHandlers } from '../../protocol/ops/index.ts';
import type { World } from '../world/index.ts';

export type ServerHandlers = Pick<OpHandlers, 'server.status'>;

/**
 * `server.status`: player_count is the number of connected players, or null when the world's
 * mod predates reporting it (feature `statusPlayerCount`, 2.0.0: our decision).
 */
export function serverHandlers(world: World): ServerHandlers {
  return {
    'server.status': () => ({
      player_count: world.features.statusPlayerCount ? world.players.onlineCount() : null,
    }),
  };
}
