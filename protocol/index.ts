/**
 * The mod link's public surface (PROTOCOL.md): the codec, keys, the handshake and session state
 * machines, the daemon's link server, the mod bridge and the op catalogue.
 */
export { decode, encode, resolveLimits, DEFAULT_CODEC_LIMITS, type CodecLimits } from './codec.ts';
export {
  PROTOCOL_ERRORS,
  ProtocolError,
  codeForCloseCode,
  protocolError,
  type Outcome,
  type ProtocolErrorCode,
} from './errors.ts';
export {
  decodeKey,
  encodeKey,
  generateEphemeral,
  generateIdentity,
  hkdfSha256,
  identityFromSeed,
  keysEqual,
  sign,
  verify,
  x25519,
  type EphemeralKey,
  type Identity,
} from './keys.ts';
export {
  DaemonHandshake,
  ModHandshake,
  type Established,
  type HandshakeStep,
  type RandomSource,
} from './handshake.ts';
export { LABELS, SUPPORTED_VERSIONS, transcriptBytes, transcriptHash } from './handshake-messages.ts';
export { Session, type SessionKeys, type SessionState } from './session.ts';
export { FRAME_OVERHEAD, openFrame, sealFrame, aeadKey } from './aead.ts';
export { MAX_FRAME_BODIES, type FrameBody, type ReqFrame, type ResFrame, type Role } from './frames.ts';
export {
  ModLinkServer,
  LinkCallError,
  type CallOptions,
  type LinkCallErrorKind,
  type LinkOpError,
  type ModLinkServerOptions,
  type ModPeer,
} from './link-server.ts';
export { ModBridge, startModBridge, type BridgeSession, type ModBridgeOptions } from './bridge.ts';
export { DEFAULT_MAX_PAYLOAD, DEFAULT_TIMERS, type LinkTimers } from './link-connection.ts';
export { silentLogger, type Logger } from './log.ts';
export * from './ops/index.ts';
