/**
 * The session frame envelope (PROTOCOL §4.1): `seq (u64 BE) ‖ ciphertext ‖ tag (16)`, sealed with
 * ChaCha20-Poly1305 (RFC 8439) under the sending direction's key, nonce = 4 zero bytes ‖ seq,
 * AAD = the 8 seq bytes. Pure functions; the sequence discipline lives in `session.ts`.
 */
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { fail, type Outcome } from './errors.ts';

export const SEQ_BYTES = 8;
export const TAG_BYTES = 16;
export const FRAME_OVERHEAD = SEQ_BYTES + TAG_BYTES;
const CIPHER = 'chacha20-poly1305';
const TWO_POW_32 = 0x1_0000_0000;

export type AeadKey = KeyObject;

export function aeadKey(raw: Uint8Array): AeadKey {
  if (raw.length !== 32) throw new TypeError('a session key is 32 bytes');
  return createSecretKey(raw);
}

// One scratch nonce, rewritten before each use: createCipheriv copies the IV, and the whole
// seal/open runs synchronously, so no two frames ever share it. Allocating 12 fresh bytes per
// frame costs more than the rest of the bookkeeping together.
const NONCE = Buffer.alloc(12);

/** The 12-byte nonce for a frame: 4 zero bytes then the 8 seq bytes (PROTOCOL §4.1). */
function nonceFor(frame: Uint8Array): Buffer {
  for (let i = 0; i < SEQ_BYTES; i += 1) NONCE[4 + i] = frame[i] as number;
  return NONCE;
}

export function writeSeq(target: Uint8Array, seq: number): void {
  const high = Math.floor(seq / TWO_POW_32);
  const low = seq >>> 0;
  target[0] = high >>> 24;
  target[1] = (high >>> 16) & 0xff;
  target[2] = (high >>> 8) & 0xff;
  target[3] = high & 0xff;
  target[4] = low >>> 24;
  target[5] = (low >>> 16) & 0xff;
  target[6] = (low >>> 8) & 0xff;
  target[7] = low & 0xff;
}

/** The seq in a frame header; NaN when it exceeds 2^53 − 1 (no session ever gets there). */
export function readSeq(frame: Uint8Array): number {
  const high = u32(frame, 0);
  return high > 0x1fffff ? NaN : high * TWO_POW_32 + u32(frame, 4);
}

function u32(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let i = 0; i < 4; i += 1) value = (value << 8) | (bytes[at + i] as number);
  return value >>> 0;
}

/** ChaCha20-Poly1305 needs no plaintext length (only CCM does); node's typings ask for one anyway. */
function setAad(cipher: object, aad: Uint8Array): void {
  (cipher as { setAAD(buffer: Uint8Array): unknown }).setAAD(aad);
}

export function sealFrame(key: AeadKey, seq: number, plaintext: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(FRAME_OVERHEAD + plaintext.length);
  writeSeq(out, seq);
  const cipher = createCipheriv(CIPHER, key, nonceFor(out), { authTagLength: TAG_BYTES });
  setAad(cipher, out.subarray(0, SEQ_BYTES));
  out.set(cipher.update(plaintext), SEQ_BYTES);
  cipher.final();
  out.set(cipher.getAuthTag(), SEQ_BYTES + plaintext.length);
  return out;
}

export interface OpenedFrame {
  /** The seq the frame claims, authenticated by the tag; NaN beyond 2^53 − 1. */
  seq: number;
  plaintext: Uint8Array;
}

/** Verifies the tag under `key` and decrypts; `bad_mac` when the tag does not verify. */
export function openFrame(key: AeadKey, frame: Uint8Array, maxPlaintext: number): Outcome<OpenedFrame> {
  if (frame.length <= FRAME_OVERHEAD) {
    return fail('malformed', `a session frame needs more than ${FRAME_OVERHEAD} bytes, got ${frame.length}`);
  }
  const length = frame.length - FRAME_OVERHEAD;
  if (length > maxPlaintext) {
    return fail('frame_too_large', `frame body of ${length} bytes exceeds ${maxPlaintext}`);
  }
  const decipher = createDecipheriv(CIPHER, key, nonceFor(frame), { authTagLength: TAG_BYTES });
  setAad(decipher, frame.subarray(0, SEQ_BYTES));
  decipher.setAuthTag(frame.subarray(SEQ_BYTES + length));
  const plaintext = decipher.update(frame.subarray(SEQ_BYTES, SEQ_BYTES + length));
  try {
    decipher.final();
  } catch {
    return fail('bad_mac', 'the frame tag does not verify');
  }
  return { ok: true, value: { seq: readSeq(frame), plaintext } };
}
