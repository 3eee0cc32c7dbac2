/**
 * Option checks shared by the link server and the bridge: each factory checks its options once,
 * at construction, and fails with a TypeError or RangeError that names the option.
 */
import { resolveLimits, type CodecLimits } from './codec.ts';
import { batchBounds } from './frame-batch.ts';
import { KEY_BYTES, type KeyPair } from './keys.ts';
import { DEFAULT_MAX_PAYLOAD, DEFAULT_TIMERS, type LinkTimers } from './link-connection.ts';

export function checkPositiveInt(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

export function checkKey(key: unknown, name: string): Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
    throw new TypeError(`${name} must be a ${KEY_BYTES}-byte Uint8Array`);
  }
  return key;
}

export function checkIdentity(identity: KeyPair | undefined, name: string): KeyPair {
  if (typeof identity !== 'object' || identity === null) throw new TypeError(`${name} is required`);
  checkKey(identity.publicKey, `${name}.publicKey`);
  checkKey(identity.secretKey, `${name}.secretKey`);
  return identity;
}

/** The link settings both ends take: codec limits, timers and the largest WebSocket message. */
export interface LinkSettingsOptions extends Partial<LinkTimers> {
  limits?: Partial<CodecLimits>;
  maxPayload?: number;
}

export interface LinkSettings {
  limits: CodecLimits;
  timers: LinkTimers;
  maxPayload: number;
}

/** Resolves and checks the link settings, with the defaults of PROTOCOL §2.2 and §5. */
export function resolveLinkSettings(options: LinkSettingsOptions): LinkSettings {
  const timer = (name: keyof LinkTimers) => checkPositiveInt(options[name] ?? DEFAULT_TIMERS[name], name);
  const limits = resolveLimits(options.limits);
  const maxPayload = checkPositiveInt(options.maxPayload ?? DEFAULT_MAX_PAYLOAD, 'maxPayload');
  batchBounds(limits, maxPayload); // a frame must hold at least one small body (§4.2)
  return {
    limits,
    timers: {
      handshakeTimeoutMs: timer('handshakeTimeoutMs'),
      heartbeatMs: timer('heartbeatMs'),
      heartbeatTimeoutMs: timer('heartbeatTimeoutMs'),
    },
    maxPayload,
  };
}
