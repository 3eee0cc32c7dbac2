import { describe, expect, it } from 'vitest';
import { OPS } from '../../../protocol/ops/index.ts';
import { serverHandlers } from '../../../mod-sim/handlers/server.ts';
import { createWorld } from '../../../mod-sim/world/index.ts';

const ctx = { opId: undefined, signal: new AbortController().signal, applied: () => {} };

describe('server.status handler', () => {
  it('reports the number of connected players', async () => {
    const world = createWorld({ players: 300 });
    const result = await serverHandlers(world)['server.status']({}, ctx);
    expect(result).toEqual({ player_count: world.players.onlineCount() });
    expect(result.player_count).toBeGreaterThan(0);
    expect(OPS['server.status'].result.parse(result)).toEqual(result);
  });

  it('follows players as they connect and leave', async () => {
    const world = createWorld({ players: 50, onlineShare: 0 });
    const handlers = serverHandlers(world);
    expect(await handlers['server.status']({}, ctx)).toEqual({ player_count: 0 });
    const player = world.players.list.itemAt(0);
    world.players.setOnline(player, {
      ping: 40,
      position: { x: 0, y: 0, z: 0 },
      stance: 'standing',
      alive: true,
      conscious: true,
      immortal: false,
      super_jump: false,
      item_in_hands: null,
    });
    expect(await handlers['server.status']({}, ctx)).toEqual({ player_count: 1 });
    world.players.setOnline(player, null);
    expect(await handlers['server.status']({}, ctx)).toEqual({ player_count: 0 });
  });

  it('reports null on a mod older than 2.0.0', async () => {
    const world = createWorld({ players: 50, modVersion: '1.9.9' });
    const result = await serverHandlers(world)['server.status']({}, ctx);
    expect(result).toEqual({ player_count: null });
    expect(OPS['server.status'].result.parse(result)).toEqual(result);
  });
});
