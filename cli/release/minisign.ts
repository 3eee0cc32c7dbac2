/**
 * Verifying minisign signatures in our own code: `modgate self-update` runs inside the single
 * executable, where no `minisign` is installed. Only the prehashed `ED` algorithm, minisign's
 * default since 0.10, is accepted: Ed25519 over the file's BLAKE2b-512. The trusted comment is
 * checked too (its global signature covers the file signature and the comment), because the
 * release's version is read from it (docs/security.md, "Releases and self-update").
 *
 * Formats (minisign's documentation, "Signature format" and "Public key format"):
 * - public key: `untrusted comment: …` then base64 of `Ed` (2 bytes), key id (8), key (32);
 * - signature: `untrusted comment: …`, base64 of `ED` (2), key id (8), signature (64),
 *   `trusted comment: …`, base64 of the global signature (64) over signature ‖ trusted comment.
 */
import { createHash } from 'node:crypto';
import nacl from 'tweetnacl';

export interface MinisignPublicKey {
  /** The key id as minisign prints it: 16 hex digits, the id's 8 bytes read little-endian. */
  readonly id: string;
  readonly keyId: Buffer;
  readonly key: Uint8Array;
}

/** Why a signature was refused; the message says which check failed. */
export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureError';
  }
}

const TRUSTED_PREFIX = 'trusted comment: ';

/** A public key from its base64 line (what `minisign -P` takes) or a whole `.pub` file. */
export function parsePublicKey(text: string): MinisignPublicKey {
  const lines = text.trim().split('\n');
  const bytes = Buffer.from(lines.at(-1)?.trim() ?? '', 'base64');
  if (bytes.length !== 42 || bytes.subarray(0, 2).toString('latin1') !== 'Ed') {
    throw new SignatureError('not a minisign Ed25519 public key');
  }
  const keyId = bytes.subarray(2, 10);
  return { id: keyIdHex(keyId), keyId, key: new Uint8Array(bytes.subarray(10)) };
}

/**
 * Checks `signature` (a `.minisig` file's text) over `data` with `key` and resolves to the
 * trusted comment; throws SignatureError when the algorithm, the key id, the signature or the
 * trusted comment's global signature is wrong.
 */
export function verifyMinisign(data: Uint8Array, signature: string, key: MinisignPublicKey): string {
  const lines = signature.replace(/\r/g, '').split('\n');
  const [untrusted, sigLine, trustedLine, globalLine] = lines;
  if (!untrusted?.startsWith('untrusted comment:') || !trustedLine?.startsWith(TRUSTED_PREFIX)) {
    throw new SignatureError('not a minisign signature file');
  }
  const sig = Buffer.from(sigLine ?? '', 'base64');
  const global = Buffer.from(globalLine ?? '', 'base64');
  if (sig.length !== 74 || global.length !== 64) throw new SignatureError('not a minisign signature file');
  const algorithm = sig.subarray(0, 2).toString('latin1');
  if (algorithm !== 'ED') {
    throw new SignatureError(`signature algorithm ${algorithm}: only prehashed (ED) signatures are accepted`);
  }
  const keyId = sig.subarray(2, 10);
  if (!keyId.equals(key.keyId)) {
    throw new SignatureError(`signed by key ${keyIdHex(keyId)}, not the release key ${key.id}`);
  }
  const fileSignature = sig.subarray(10);
  const prehash = createHash('blake2b512').update(data).digest();
  if (!nacl.sign.detached.verify(prehash, fileSignature, key.key)) {
    throw new SignatureError('the signature does not match the file');
  }
  const trusted = trustedLine.slice(TRUSTED_PREFIX.length);
  const signed = Buffer.concat([fileSignature, Buffer.from(trusted, 'utf8')]);
  if (!nacl.sign.detached.verify(signed, global, key.key)) {
    throw new SignatureError('the trusted comment does not match its signature');
  }
  return trusted;
}

function keyIdHex(keyId: Buffer): string {
  return Buffer.from(keyId).reverse().toString('hex').toUpperCase();
}
