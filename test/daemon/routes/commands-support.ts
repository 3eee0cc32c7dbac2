/** Helpers for the command route tests: a stack whose console is ready, owned keys, typed answers. */
import type { Player, World } from '../../../mod-sim/world/index.ts';
import { eventually, type Stack } from '../../../harness/stack.ts';

export const OWNER = { platform_id: '76561190000000042', social_id: '112233445566778899' };

export type CommandAnswer = {
  verb: string;
  success: boolean;
  result: string;
  subject: {
    kind: 'player' | 'position';
    player: { platform_id: string; social_id: string | null } | null;
    position: { x: number; y: number; z: number } | null;
  } | null;
};

export type HistoryPage = {
  data: Array<{
    at: string;
    command: string;
    result: string;
    actor: { platform_id: string | null; social_id: string | null } | null;
    source: 'api' | 'panel' | 'chat' | 'task' | null;
  }>;
  has_more: boolean;
  next_cursor: string | null;
};

export function errorOf(json: unknown) {
  return (json as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
}

/** Creates a key and waits until the running daemon accepts it. */
export async function newKey(stack: Stack, ...flags: string[]): Promise<string> {
  const { key } = await stack.data.createKey(...flags);
  await eventually(
    async () =>
      (await stack.call('/v1/commands/history?limit=1', { headers: { authorization: `Bearer ${key}` } }))
        .status !== 401,
  );
  return key;
}

/** POSTs a command body (any JSON) with `key`, or the stack's all-scopes key. */
export function postCommand(stack: Stack, body: unknown, key?: string) {
  return stack.call('/v1/commands', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
  });
}

export function onlinePlayer(world: World, n = 0): Player {
  const player = world.players.online()[n];
  if (player === undefined) throw new Error('not enough players online');
  return player;
}

export function historyLength(stack: Stack): number {
  return stack.sim!.world.commands.history.length;
}
