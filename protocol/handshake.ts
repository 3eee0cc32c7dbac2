/**
 * The handshake as two state machines, one per role, apart from any socket (PROTOCOL §3). Each
 * takes one message's bytes and returns what to send, the established session, or the
 * `ProtocolError` to close with. Randomness is injectable so golden vectors are reproducible.
 *
 *   mod:     start ─hello─▶ await_welcome ─welcome/auth─▶ done      (then `ready`, §4.5)
 *   daemon:  await_hello ─hello/welcome─▶ await_auth ─auth─▶ done
 *   either:  any rejection ─▶ failed (every later message is `unexpected_frame`)
 */
import { randomBytes } from 'node:crypto';
import { decodeWith, encode, type FloatPaths } from './codec.ts';
import { ProtocolError, type Outcome } from './errors.ts';
import { isPlainObject, withoutFloats, type Role } from './frames.ts';
import {
  deriveSessionKeys,
  HANDSHAKE_LIMITS,
  negotiateVersion,
  NONCE_BYTES,
  parseAuth,
  parseHello,
  parseWelcome,
  signedMessage,
  SUPPORTED_VERSIONS,
  transcriptHash,
  type Hello,
} from './handshake-messages.ts';
import {
  generateEphemeral,
  keysEqual,
  sign,
  verify,
  x25519,
  type EphemeralKey,
  type KeyPair,
} from './keys.ts';

/** Returns `length` random bytes; tests and vector generation inject a deterministic one. */
export type RandomSource = (length: number) => Uint8Array;

export interface Established {
  role: Role;
  version: number;
  /** The peer's Ed25519 public key. */
  peerId: Uint8Array;
  modVersion: string;
  transcriptHash: Uint8Array;
  /** Key for frames this side sends, and for frames it receives (PROTOCOL §3.6). */
  sendKey: Uint8Array;
  receiveKey: Uint8Array;
}

export interface HandshakeStep {
  /** A message to send to the peer, if any. */
  reply?: Uint8Array;
  /** Set when this step completed the handshake. */
  established?: Established;
  /** Set when the handshake failed: close the link with `error.closeCode`. */
  error?: ProtocolError;
}

export type DaemonHandshakeState = 'await_hello' | 'await_auth' | 'done' | 'failed';
export type ModHandshakeState = 'start' | 'await_welcome' | 'done' | 'failed';

const defaultRandom: RandomSource = (length) => randomBytes(length);

function failed(error: ProtocolError): HandshakeStep {
  return { error };
}

function decodeMessage<T>(bytes: Uint8Array, parse: (value: unknown) => Outcome<T>): Outcome<T> {
  const floats: FloatPaths = [];
  const decoded = decodeWith(bytes, HANDSHAKE_LIMITS, floats);
  if (!decoded.ok) return decoded;
  return parse(floats.length === 0 ? decoded.value : withoutFloatVersions(decoded.value, new Set(floats)));
}

/** PROTOCOL §2.1: `version` and each of `versions` are msgpack ints; a float there is refused. */
function withoutFloatVersions(value: unknown, floats: ReadonlySet<string>): unknown {
  if (!isPlainObject(value)) return value;
  const fields = withoutFloats(value, floats);
  const versions = fields['versions'];
  if (!Array.isArray(versions)) return fields;
  return {
    ...fields,
    versions: versions.map((v: unknown, i) => (floats.has(`versions/${i}`) ? Number.NaN : v)),
  };
}

export interface DaemonHandshakeOptions {
  identity: KeyPair;
  /** Called once per handshake, when the hello arrives, so a reloaded trust list applies at once. */
  trustedModKeys: () => readonly Uint8Array[];
  versions?: readonly number[];
  random?: RandomSource;
}

/** What the daemon knows between hello and auth: the session keys, not yet who the mod is. */
type PendingSession = Omit<Established, 'role' | 'peerId' | 'modVersion'>;

export class DaemonHandshake {
  state: DaemonHandshakeState = 'await_hello';
  #hello: Hello | null = null;
  #pending: PendingSession | null = null;
  readonly #options: DaemonHandshakeOptions;

  constructor(options: DaemonHandshakeOptions) {
    this.#options = options;
  }

  receive(bytes: Uint8Array): HandshakeStep {
    const step =
      this.state === 'await_hello'
        ? this.#onHello(bytes)
        : this.state === 'await_auth'
          ? this.#onAuth(bytes)
          : null;
    if (step === null)
      return this.#fail(new ProtocolError('unexpected_frame', `no message expected in ${this.state}`));
    if (step.error) return this.#fail(step.error);
    return step;
  }

  #fail(error: ProtocolError): HandshakeStep {
    this.state = 'failed';
    return failed(error);
  }

  /** PROTOCOL §3.2–§3.3: negotiate, check trust, answer with a signed welcome. */
  #onHello(bytes: Uint8Array): HandshakeStep {
    const parsed = decodeMessage(bytes, parseHello);
    if (!parsed.ok) return failed(parsed.error);
    const hello = parsed.value;
    const version = negotiateVersion(hello.versions, this.#options.versions ?? SUPPORTED_VERSIONS);
    if (version === null) {
      return failed(
        new ProtocolError('unsupported_version', `no common version in [${hello.versions.join(', ')}]`),
      );
    }
    if (!this.#options.trustedModKeys().some((key) => keysEqual(key, hello.id))) {
      return failed(new ProtocolError('unknown_identity', 'the mod key is not trusted by this daemon'));
    }
    const random = this.#options.random ?? defaultRandom;
    const nonce = random(NONCE_BYTES);
    const eph: EphemeralKey = generateEphemeral(random(32));
    const shared = x25519(eph.secretKey, hello.eph);
    if (shared === null)
      return failed(new ProtocolError('invalid_message', 'hello.eph is not a usable X25519 key'));
    const { identity } = this.#options;
    const th = transcriptHash({
      version,
      offered: hello.versions,
      hello,
      welcome: { id: identity.publicKey, nonce, eph: eph.publicKey },
    });
    const sig = sign(identity.secretKey, signedMessage('daemon', th));
    const keys = deriveSessionKeys(shared, th);
    this.#hello = hello;
    this.#pending = { version, transcriptHash: th, sendKey: keys.daemonToMod, receiveKey: keys.modToDaemon };
    this.state = 'await_auth';
    const welcome = { t: 'welcome', version, id: identity.publicKey, nonce, eph: eph.publicKey, sig };
    return { reply: encode(welcome) };
  }

  /** PROTOCOL §3.5: the mod proves its key over the same transcript. */
  #onAuth(bytes: Uint8Array): HandshakeStep {
    const parsed = decodeMessage(bytes, parseAuth);
    if (!parsed.ok) return failed(parsed.error);
    const hello = this.#hello as Hello;
    const pending = this.#pending as PendingSession;
    if (!verify(hello.id, signedMessage('mod', pending.transcriptHash), parsed.value.sig)) {
      return failed(new ProtocolError('bad_signature', 'the mod signature does not verify'));
    }
    this.state = 'done';
    return { established: { ...pending, role: 'daemon', peerId: hello.id, modVersion: hello.mod_version } };
  }
}

export interface ModHandshakeOptions {
  identity: KeyPair;
  /** The daemon key this mod pins; any other key is `unknown_identity`. */
  daemonPublicKey: Uint8Array;
  modVersion: string;
  versions?: readonly number[];
  random?: RandomSource;
}

export class ModHandshake {
  state: ModHandshakeState = 'start';
  #hello: Hello | null = null;
  #eph: EphemeralKey | null = null;
  readonly #options: ModHandshakeOptions;

  constructor(options: ModHandshakeOptions) {
    this.#options = options;
  }

  /** PROTOCOL §3.2: the hello that opens the handshake. */
  start(): Uint8Array {
    if (this.state !== 'start') throw new Error(`start() called in state ${this.state}`);
    const random = this.#options.random ?? defaultRandom;
    const nonce = random(NONCE_BYTES);
    this.#eph = generateEphemeral(random(32));
    this.#hello = {
      t: 'hello',
      versions: [...(this.#options.versions ?? SUPPORTED_VERSIONS)],
      role: 'mod',
      id: this.#options.identity.publicKey,
      nonce,
      eph: this.#eph.publicKey,
      mod_version: this.#options.modVersion,
    };
    this.state = 'await_welcome';
    return encode(this.#hello);
  }

  receive(bytes: Uint8Array): HandshakeStep {
    if (this.state !== 'await_welcome') {
      this.state = 'failed';
      return failed(new ProtocolError('unexpected_frame', 'no handshake message expected now'));
    }
    const step = this.#onWelcome(bytes);
    this.state = step.error ? 'failed' : 'done';
    return step;
  }

  /** PROTOCOL §3.3–§3.5: check the daemon's key and signature, answer with auth. */
  #onWelcome(bytes: Uint8Array): HandshakeStep {
    const parsed = decodeMessage(bytes, parseWelcome);
    if (!parsed.ok) return failed(parsed.error);
    const welcome = parsed.value;
    const hello = this.#hello as Hello;
    if (!hello.versions.includes(welcome.version)) {
      return failed(
        new ProtocolError('unsupported_version', `the daemon chose unoffered version ${welcome.version}`),
      );
    }
    if (!keysEqual(welcome.id, this.#options.daemonPublicKey)) {
      return failed(new ProtocolError('unknown_identity', 'the daemon key is not the pinned one'));
    }
    const th = transcriptHash({ version: welcome.version, offered: hello.versions, hello, welcome });
    if (!verify(welcome.id, signedMessage('daemon', th), welcome.sig)) {
      return failed(new ProtocolError('bad_signature', 'the daemon signature does not verify'));
    }
    const shared = x25519((this.#eph as EphemeralKey).secretKey, welcome.eph);
    if (shared === null)
      return failed(new ProtocolError('invalid_message', 'welcome.eph is not a usable X25519 key'));
    const keys = deriveSessionKeys(shared, th);
    const sig = sign(this.#options.identity.secretKey, signedMessage('mod', th));
    const established: Established = {
      role: 'mod',
      version: welcome.version,
      peerId: welcome.id,
      modVersion: hello.mod_version,
      transcriptHash: th,
      sendKey: keys.modToDaemon,
      receiveKey: keys.daemonToMod,
    };
    return { reply: encode({ t: 'auth', sig }), established };
  }
}
