/**
 * Key material for the mod link (PROTOCOL §3.1), all through node:crypto. Identity keys are raw
 * 32-byte Ed25519 keys (the secret is the 32-byte seed), the same bytes tweetnacl and libsodium
 * use, stored as standard base64. Ephemeral keys are raw 32-byte X25519 keys.
 *
 * node:crypto takes raw keys only inside DER, so each raw key is wrapped in the fixed PKCS#8 or
 * SPKI prefix for its algorithm (RFC 8410). Verification uses node:crypto because it rejects the
 * malleable signature (S + L) that tweetnacl 1.0.3 accepts (PROTOCOL §3.1).
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  randomBytes,
  sign as cryptoSign,
  timingSafeEqual,
  verify as cryptoVerify,
  type KeyObject,
} from 'node:crypto';

export const KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

export interface KeyPair {
  /** Raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** Raw 32-byte Ed25519 seed (libsodium's `seed`, tweetnacl's `keyPair.fromSeed` input). */
  readonly secretKey: Uint8Array;
}

export interface EphemeralKey {
  /** Raw 32-byte X25519 public key. */
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

// RFC 8410 DER prefixes: the raw 32 key bytes follow each one directly.
const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const X25519_SPKI = Buffer.from('302a300506032b656e032100', 'hex');
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkLength(bytes: Uint8Array, length: number, what: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    throw new TypeError(`${what} must be ${length} bytes`);
  }
}

function privateKeyObject(prefix: Buffer, secret: Uint8Array): KeyObject {
  checkLength(secret, KEY_BYTES, 'secret key');
  return createPrivateKey({ key: Buffer.concat([prefix, secret]), format: 'der', type: 'pkcs8' });
}

function publicKeyObject(prefix: Buffer, key: Uint8Array): KeyObject {
  checkLength(key, KEY_BYTES, 'public key');
  return createPublicKey({ key: Buffer.concat([prefix, key]), format: 'der', type: 'spki' });
}

function rawPublic(privateKey: KeyObject): Uint8Array {
  const der = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - KEY_BYTES));
}

export function identityFromSeed(seed: Uint8Array): KeyPair {
  const publicKey = rawPublic(privateKeyObject(ED25519_PKCS8, seed));
  return { publicKey, secretKey: new Uint8Array(seed) };
}

export function generateIdentity(): KeyPair {
  return identityFromSeed(randomBytes(KEY_BYTES));
}

/** Standard base64 with padding, the format of key files. */
export function encodeKey(key: Uint8Array): string {
  return Buffer.from(key).toString('base64');
}

/** Parses a base64 key (surrounding whitespace allowed); throws TypeError unless exactly `length` bytes. */
export function decodeKey(text: string, length: number = KEY_BYTES): Uint8Array {
  const trimmed = text.trim();
  if (!BASE64.test(trimmed) || trimmed.length % 4 !== 0) throw new TypeError('key is not standard base64');
  const bytes = Buffer.from(trimmed, 'base64');
  if (bytes.length !== length) throw new TypeError(`key must be ${length} bytes, got ${bytes.length}`);
  return new Uint8Array(bytes);
}

/** Ed25519 signature (RFC 8032) by the identity whose seed is `secretKey`. */
export function sign(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(cryptoSign(null, message, privateKeyObject(ED25519_PKCS8, secretKey)));
}

/** True when `signature` is a valid, canonical Ed25519 signature. Never throws. */
export function verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(signature instanceof Uint8Array) || signature.length !== SIGNATURE_BYTES) return false;
  try {
    return cryptoVerify(null, message, publicKeyObject(ED25519_SPKI, publicKey), signature);
  } catch {
    return false;
  }
}

/** A fresh X25519 key pair; `secret` (32 bytes) makes it deterministic for test vectors. */
export function generateEphemeral(secret: Uint8Array = randomBytes(KEY_BYTES)): EphemeralKey {
  const privateKey = privateKeyObject(X25519_PKCS8, secret);
  return { publicKey: rawPublic(privateKey), secretKey: new Uint8Array(secret) };
}

/** X25519 (RFC 7748); null when the peer key is invalid or yields the all-zero secret. */
export function x25519(secretKey: Uint8Array, peerPublicKey: Uint8Array): Uint8Array | null {
  try {
    const shared = diffieHellman({
      privateKey: privateKeyObject(X25519_PKCS8, secretKey),
      publicKey: publicKeyObject(X25519_SPKI, peerPublicKey),
    });
    return shared.every((byte) => byte === 0) ? null : new Uint8Array(shared);
  } catch {
    return null;
  }
}

/** HKDF-SHA256 (RFC 5869) with a UTF-8 `info`. */
export function hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: string, length = 32): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', ikm, salt, Buffer.from(info, 'utf8'), length));
}

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** Constant-time equality of two keys; false when lengths differ. */
export function keysEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
