/**
 * Option checks shared by the link server and the bridge: each factory checks its options once,
 * at construction, and fails with a TypeError or RangeError that names the option.
 */
import { KEY_BYTES, type Identity } from './keys.ts';

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

export function checkIdentity(identity: Identity | undefined, name: string): Identity {
  if (typeof identity !== 'object' || identity === null) throw new TypeError(`${name} is required`);
  checkKey(identity.publicKey, `${name}.publicKey`);
  checkKey(identity.secretKey, `${name}.secretKey`);
  return identity;
}
