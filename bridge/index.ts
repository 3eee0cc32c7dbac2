/**
 * `modgate/bridge`: the mod's end of the link, for a game server whose mods run JavaScript
 * (docs/bridge.md): the bridge that dials the daemon, handshakes, dispatches ops to typed handlers,
 * reports `applied` and redials with backoff (bridge.ts); a reader for `mod-credentials.json`
 * (credentials.ts); and, from protocol/, what both ends share: the op catalogue the handlers are
 * typed from, the errors, the timers. Mods in other
 * languages implement protocol/PROTOCOL.md instead.
 */
import type { KeyPair } from '../protocol/keys.ts';

export { ModBridge, startModBridge, type BridgeSession, type ModBridgeOptions } from './bridge.ts';
export { parseModCredentials, readModCredentials, type ModCredentials } from './credentials.ts';
export {
  OPS,
  OpError,
  OP_ERROR_CODES,
  isOpName,
  type OpArgs,
  type OpErrorCode,
  type OpHandler,
  type OpHandlers,
  type OpName,
  type OpResult,
} from '../protocol/ops/index.ts';
export { ProtocolError, type ProtocolErrorCode } from '../protocol/errors.ts';
export { DEFAULT_TIMERS, type LinkTimers } from '../protocol/link-connection.ts';
export { silentLogger, type Logger } from '../protocol/log.ts';
export type { KeyPair } from '../protocol/keys.ts';
/** @deprecated use KeyPair */
export type Identity = KeyPair;
export type { BackoffPolicy } from '../protocol/backoff.ts';
