import { createHmac } from 'node:crypto';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import {
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
} from '../../protocol/keys.ts';
import { hex } from './support.ts';

const message = new TextEncoder().encode('modgate/1 daemon and a transcript hash');

/** Ed25519's group order L, and S + L for a signature (the malleable twin). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
function malleate(signature: Uint8Array): Uint8Array {
  const s = BigInt('0x' + Buffer.from(signature.subarray(32)).reverse().toString('hex'));
  const twin = Buffer.from((s + L).toString(16).padStart(64, '0'), 'hex').reverse();
  return Uint8Array.from([...signature.subarray(0, 32), ...twin]);
}

describe('identity keys', () => {
  it('generates a 32-byte seed and the public key tweetnacl derives from it', () => {
    const identity = generateIdentity();
    expect(identity.secretKey).toHaveLength(32);
    expect(identity.publicKey).toHaveLength(32);
    expect([...nacl.sign.keyPair.fromSeed(identity.secretKey).publicKey]).toEqual([...identity.publicKey]);
  });

  it('derives the RFC 8032 test 1 public key from its seed', () => {
    const identity = identityFromSeed(
      hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'),
    );
    expect(Buffer.from(identity.publicKey).toString('hex')).toBe(
      'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    );
  });

  it('signs what tweetnacl verifies and verifies what tweetnacl signs', () => {
    const identity = generateIdentity();
    const ours = sign(identity.secretKey, message);
    expect(nacl.sign.detached.verify(message, ours, identity.publicKey)).toBe(true);
    const theirs = nacl.sign.detached(message, nacl.sign.keyPair.fromSeed(identity.secretKey).secretKey);
    expect(verify(identity.publicKey, message, theirs)).toBe(true);
  });

  it('rejects a signature by another key, over another message, or with a flipped bit', () => {
    const identity = generateIdentity();
    const signature = sign(identity.secretKey, message);
    expect(verify(generateIdentity().publicKey, message, signature)).toBe(false);
    expect(verify(identity.publicKey, message.subarray(1), signature)).toBe(false);
    const flipped = new Uint8Array(signature);
    flipped[10] = (flipped[10] as number) ^ 1;
    expect(verify(identity.publicKey, message, flipped)).toBe(false);
  });

  it('rejects the malleable S + L signature that tweetnacl 1.0.3 accepts', () => {
    const identity = generateIdentity();
    const twin = malleate(sign(identity.secretKey, message));
    expect(nacl.sign.detached.verify(message, twin, identity.publicKey)).toBe(true);
    expect(verify(identity.publicKey, message, twin)).toBe(false);
  });

  it('answers false, never throws, for a signature or key of the wrong length', () => {
    const identity = generateIdentity();
    expect(verify(identity.publicKey, message, new Uint8Array(63))).toBe(false);
    expect(verify(new Uint8Array(31), message, sign(identity.secretKey, message))).toBe(false);
  });
});

describe('key files', () => {
  it('round-trips a key through standard base64', () => {
    const key = generateIdentity().publicKey;
    const text = encodeKey(key);
    expect(text).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect([...decodeKey(text)]).toEqual([...key]);
  });

  it('accepts the trailing newline of a key file', () => {
    const key = generateIdentity().publicKey;
    expect([...decodeKey(`${encodeKey(key)}\n`)]).toEqual([...key]);
  });

  it.each([
    ['a 31-byte key', encodeKey(new Uint8Array(31))],
    ['a 33-byte key', encodeKey(new Uint8Array(33))],
    ['url-safe base64', encodeKey(new Uint8Array(32).fill(0xfb)).replace(/\+/g, '-').replace(/\//g, '_')],
    ['missing padding', encodeKey(new Uint8Array(32)).replace('=', '')],
    ['not base64 at all', 'not a key!'],
  ])('rejects %s with a TypeError', (_name, text) => {
    expect(() => decodeKey(text)).toThrow(TypeError);
  });

  it('compares keys in constant time, false for different lengths', () => {
    const key = generateIdentity().publicKey;
    expect(keysEqual(key, new Uint8Array(key))).toBe(true);
    expect(keysEqual(key, generateIdentity().publicKey)).toBe(false);
    expect(keysEqual(key, key.subarray(1))).toBe(false);
  });
});

describe('ephemeral keys and key derivation', () => {
  it('reproduces the RFC 7748 X25519 test vector', () => {
    const alice = generateEphemeral(hex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a'));
    const bob = generateEphemeral(hex('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb'));
    expect(Buffer.from(alice.publicKey).toString('hex')).toBe(
      '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
    );
    const shared = '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742';
    expect(Buffer.from(x25519(alice.secretKey, bob.publicKey) as Uint8Array).toString('hex')).toBe(shared);
    expect(Buffer.from(x25519(bob.secretKey, alice.publicKey) as Uint8Array).toString('hex')).toBe(shared);
  });

  it('refuses a low-order peer key that would give the all-zero secret', () => {
    expect(x25519(generateEphemeral().secretKey, new Uint8Array(32))).toBeNull();
    expect(x25519(generateEphemeral().secretKey, new Uint8Array(31))).toBeNull();
  });

  it('computes HKDF-SHA256 as RFC 5869 extract-then-expand', () => {
    const ikm = generateIdentity().secretKey;
    const salt = generateIdentity().secretKey;
    const prk = createHmac('sha256', salt).update(ikm).digest();
    const okm = createHmac('sha256', prk)
      .update(Buffer.concat([Buffer.from('modgate/1 mod->daemon'), Buffer.from([1])]))
      .digest();
    expect([...hkdfSha256(ikm, salt, 'modgate/1 mod->daemon')]).toEqual([...okm]);
  });
});
