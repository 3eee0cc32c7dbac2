/**
 * The three handshake messages and the transcript they are bound by (PROTOCOL §3.2–§3.5): the
 * shapes, their parsers, the exact transcript byte layout and the key schedule. Pure functions;
 * the order in which they are used is the state machine in `handshake.ts`.
 */
import { fail, type Outcome } from './errors.ts';
import { isPlainObject } from './frames.ts';
import { hkdfSha256, KEY_BYTES, sha256, SIGNATURE_BYTES } from './keys.ts';
import type { CodecLimits } from './msgpack-scan.ts';

/** The protocol versions this implementation speaks (PROTOCOL §7). */
export const SUPPORTED_VERSIONS: readonly number[] = Object.freeze([1]);

/** The ASCII labels of PROTOCOL §3.4–§3.5. */
export const LABELS = Object.freeze({
  transcript: 'modgate/1 handshake',
  daemonSignature: 'modgate/1 daemon',
  modSignature: 'modgate/1 mod',
  modToDaemon: 'modgate/1 mod->daemon',
  daemonToMod: 'modgate/1 daemon->mod',
});

export const NONCE_BYTES = 32;
export const MAX_OFFERED_VERSIONS = 32;
export const MAX_MOD_VERSION_BYTES = 128;

/** Handshake messages are small; they are decoded with these tighter limits (PROTOCOL §3.2). */
export const HANDSHAKE_LIMITS: Readonly<CodecLimits> = Object.freeze({
  maxBytes: 4096,
  maxDepth: 2,
  maxStringBytes: 256,
  maxBinBytes: 64,
  maxEntries: 64,
  maxElements: 256,
});

export interface Hello {
  t: 'hello';
  versions: number[];
  role: 'mod';
  id: Uint8Array;
  nonce: Uint8Array;
  eph: Uint8Array;
  mod_version: string;
}

export interface Welcome {
  t: 'welcome';
  version: number;
  id: Uint8Array;
  nonce: Uint8Array;
  eph: Uint8Array;
  sig: Uint8Array;
}

export interface Auth {
  t: 'auth';
  sig: Uint8Array;
}

function isBytes(value: unknown, length: number): value is Uint8Array {
  return value instanceof Uint8Array && value.length === length;
}

function isVersion(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 255;
}

/** Checks the message is a map whose `t` is `expected` (anything else is `unexpected_frame`). */
function expectType(value: unknown, expected: string): Outcome<Record<string, unknown>> {
  if (!isPlainObject(value)) return fail('invalid_message', 'a handshake message must be a map');
  const t = value['t'];
  if (typeof t !== 'string') return fail('invalid_message', 'a handshake message needs a str field t');
  if (t !== expected) return fail('unexpected_frame', `expected "${expected}", got "${t.slice(0, 32)}"`);
  return { ok: true, value };
}

export function parseHello(value: unknown): Outcome<Hello> {
  const checked = expectType(value, 'hello');
  if (!checked.ok) return checked;
  const { versions, role, id, nonce, eph, mod_version } = checked.value;
  if (!Array.isArray(versions) || versions.length === 0 || versions.length > MAX_OFFERED_VERSIONS) {
    return fail('invalid_message', `hello.versions must list 1 to ${MAX_OFFERED_VERSIONS} versions`);
  }
  if (!versions.every(isVersion)) return fail('invalid_message', 'each version must be an integer 1–255');
  if (role !== 'mod') return fail('invalid_message', 'hello.role must be "mod"');
  if (!isBytes(id, KEY_BYTES)) return fail('invalid_message', 'hello.id must be a 32-byte bin');
  if (!isBytes(nonce, NONCE_BYTES)) return fail('invalid_message', 'hello.nonce must be a 32-byte bin');
  if (!isBytes(eph, KEY_BYTES)) return fail('invalid_message', 'hello.eph must be a 32-byte bin');
  if (typeof mod_version !== 'string' || mod_version.length === 0) {
    return fail('invalid_message', 'hello.mod_version must be a non-empty str');
  }
  if (Buffer.byteLength(mod_version, 'utf8') > MAX_MOD_VERSION_BYTES) {
    return fail('invalid_message', `hello.mod_version exceeds ${MAX_MOD_VERSION_BYTES} bytes`);
  }
  return { ok: true, value: { t: 'hello', versions, role, id, nonce, eph, mod_version } };
}

export function parseWelcome(value: unknown): Outcome<Welcome> {
  const checked = expectType(value, 'welcome');
  if (!checked.ok) return checked;
  const { version, id, nonce, eph, sig } = checked.value;
  if (!isVersion(version)) return fail('invalid_message', 'welcome.version must be an integer 1–255');
  if (!isBytes(id, KEY_BYTES)) return fail('invalid_message', 'welcome.id must be a 32-byte bin');
  if (!isBytes(nonce, NONCE_BYTES)) return fail('invalid_message', 'welcome.nonce must be a 32-byte bin');
  if (!isBytes(eph, KEY_BYTES)) return fail('invalid_message', 'welcome.eph must be a 32-byte bin');
  if (!isBytes(sig, SIGNATURE_BYTES)) return fail('invalid_message', 'welcome.sig must be a 64-byte bin');
  return { ok: true, value: { t: 'welcome', version, id, nonce, eph, sig } };
}

export function parseAuth(value: unknown): Outcome<Auth> {
  const checked = expectType(value, 'auth');
  if (!checked.ok) return checked;
  const { sig } = checked.value;
  if (!isBytes(sig, SIGNATURE_BYTES)) return fail('invalid_message', 'auth.sig must be a 64-byte bin');
  return { ok: true, value: { t: 'auth', sig } };
}

/** The highest version both sides speak, or null (PROTOCOL §7). */
export function negotiateVersion(offered: readonly number[], supported: readonly number[]): number | null {
  let best: number | null = null;
  for (const version of offered) {
    if (supported.includes(version) && (best === null || version > best)) best = version;
  }
  return best;
}

export interface TranscriptFields {
  version: number;
  offered: readonly number[];
  hello: Pick<Hello, 'id' | 'nonce' | 'eph' | 'mod_version'>;
  welcome: Pick<Welcome, 'id' | 'nonce' | 'eph'>;
}

/** The exact transcript layout of PROTOCOL §3.4. */
export function transcriptBytes(fields: TranscriptFields): Uint8Array {
  const label = Buffer.from(LABELS.transcript, 'ascii');
  const modVersion = Buffer.from(fields.hello.mod_version, 'utf8');
  const versions = Uint8Array.from([fields.version, fields.offered.length, ...fields.offered]);
  const modVersionLength = Buffer.alloc(2);
  modVersionLength.writeUInt16BE(modVersion.length);
  const { hello, welcome } = fields;
  return Buffer.concat([
    label,
    versions,
    hello.id,
    hello.nonce,
    hello.eph,
    modVersionLength,
    modVersion,
    welcome.id,
    welcome.nonce,
    welcome.eph,
  ]);
}

export function transcriptHash(fields: TranscriptFields): Uint8Array {
  return sha256(transcriptBytes(fields));
}

/** What each side signs: its role label ‖ TH (PROTOCOL §3.5). */
export function signedMessage(role: 'daemon' | 'mod', th: Uint8Array): Uint8Array {
  const label = role === 'daemon' ? LABELS.daemonSignature : LABELS.modSignature;
  return Buffer.concat([Buffer.from(label, 'ascii'), th]);
}

export interface DirectionKeys {
  modToDaemon: Uint8Array;
  daemonToMod: Uint8Array;
}

/** The key schedule of PROTOCOL §3.6. */
export function deriveSessionKeys(shared: Uint8Array, th: Uint8Array): DirectionKeys {
  return {
    modToDaemon: hkdfSha256(shared, th, LABELS.modToDaemon),
    daemonToMod: hkdfSha256(shared, th, LABELS.daemonToMod),
  };
}
