/**
 * The op catalogue: every op the daemon may send and the mod must answer (PROTOCOL §6).
 * Add an op here and both sides see it: the daemon's `link.call()` and the bridge's handler map
 * are typed from this object.
 */
import type { z } from 'zod';
import { ASSET_OPS } from './assets.ts';
import { COMMAND_OPS } from './commands.ts';
import type { OpDefinition } from './define.ts';
import { ECONOMY_OPS } from './economy.ts';
import { PACK_OPS } from './packs.ts';
import { PLAYER_OPS } from './players.ts';
import { serverStatus } from './server.ts';

export const OPS = {
  [serverStatus.name]: serverStatus,
  ...PLAYER_OPS,
  ...ASSET_OPS,
  ...COMMAND_OPS,
  ...ECONOMY_OPS,
  ...PACK_OPS,
} as const satisfies Record<string, OpDefinition>;

export type OpName = keyof typeof OPS & string;
export type OpArgs<N extends OpName> = z.input<(typeof OPS)[N]['args']>;
export type OpResult<N extends OpName> = z.output<(typeof OPS)[N]['result']>;

/** What a mod answering op N must implement. `ctx.opId` is set on mutating ops. */
export type OpHandler<N extends OpName> = (
  args: z.output<(typeof OPS)[N]['args']>,
  ctx: { opId: string | undefined; signal: AbortSignal; applied(): void },
) => Promise<OpResult<N>> | OpResult<N>;
export type OpHandlers = { [N in OpName]: OpHandler<N> };

export function isOpName(name: string): name is OpName {
  return Object.prototype.hasOwnProperty.call(OPS, name);
}

export { defineOp, OpError, OP_ERROR_CODES } from './define.ts';
export type { OpDefinition, OpErrorCode } from './define.ts';
