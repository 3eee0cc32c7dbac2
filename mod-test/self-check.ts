/**
 * The harness checks itself before it judges a mod: the parts of `protocol/` it shares with the
 * daemon (docs/mod-testing.md, "What the harness shares with the daemon") must reproduce the golden
 * vectors of PROTOCOL §8, which come from the document, not from either program. A bug in that
 * shared code would otherwise pass a mod that has the same bug, and fail one that has not; with
 * this check such a bug stops the run before any case, naming the vector it broke.
 */
import golden from '../protocol/vectors/golden.json' with { type: 'json' };
import { aeadKey, sealFrame } from '../protocol/aead.ts';
import { decode, encode } from '../protocol/codec.ts';
import type { ProtocolErrorCode } from '../protocol/errors.ts';
import type { ReadyFrame } from '../protocol/frames.ts';
import {
  deriveSessionKeys,
  parseAuth,
  parseHello,
  signedMessage,
  transcriptHash,
} from '../protocol/handshake-messages.ts';
import { identityFromSeed, verify, x25519 } from '../protocol/keys.ts';
import type { CodecLimits } from '../protocol/msgpack-scan.ts';
import { Session } from '../protocol/session.ts';

type Direction = 'daemon->mod' | 'mod->daemon';
interface Rejected {
  name: string;
  code: ProtocolErrorCode;
}

/** The parts of golden.json the harness checks itself against (PROTOCOL §8). */
export interface GoldenVectors {
  inputs: Record<string, unknown> & { offered_versions: number[] };
  handshake: Record<string, string>;
  frames: Array<{ direction: Direction; seq: number; bodies: unknown[]; plaintext: string; frame: string }>;
  rejections: {
    codec: Array<Rejected & { bytes: string; limits?: Partial<CodecLimits> }>;
    codec_accepted: Array<{ name: string; bytes: string }>;
    session: Array<
      Rejected & {
        direction: Direction;
        frames: string[];
        rejected_at: number;
        limits?: Partial<CodecLimits>;
        ready?: ReadyFrame;
      }
    >;
    session_accepted: Array<{ name: string; direction: Direction; frames: string[] }>;
  };
}

export const GOLDEN_VECTORS = golden as unknown as GoldenVectors;

/** The shared code disagrees with a golden vector: the harness cannot be trusted to judge. */
export class SelfCheckError extends Error {
  constructor(problems: readonly string[]) {
    super(
      `the harness's shared protocol code disagrees with ${problems.length} golden vector(s) of PROTOCOL §8 (protocol/vectors/golden.json), so it cannot judge a mod: ${problems.slice(0, 5).join('; ')}`,
    );
    this.name = 'SelfCheckError';
  }
}

const bytes = (text: unknown): Uint8Array => new Uint8Array(Buffer.from(String(text), 'hex'));
const hex = (value: Uint8Array): string => Buffer.from(value).toString('hex');

/** §3.2–§3.6: the harness's hello and auth parsing, transcript, signatures and key schedule. */
function handshakeProblems(v: GoldenVectors): string[] {
  const hs = v.handshake;
  const problems: string[] = [];
  const hello = decode(bytes(hs['hello']));
  const parsed = hello.ok ? parseHello(hello.value) : hello;
  const auth = decode(bytes(hs['auth']));
  if (!parsed.ok) return [`handshake.hello is refused (${parsed.error.code})`];
  if (!(auth.ok && parseAuth(auth.value).ok)) problems.push('handshake.auth is refused');
  const daemon = identityFromSeed(bytes(v.inputs['daemon_seed']));
  const th = transcriptHash({
    version: 1,
    offered: v.inputs.offered_versions,
    hello: parsed.value,
    welcome: {
      id: daemon.publicKey,
      nonce: bytes(v.inputs['daemon_nonce']),
      eph: bytes(v.inputs['daemon_eph_public']),
    },
  });
  if (hex(th) !== hs['transcript_hash']) problems.push('handshake.transcript_hash differs');
  const shared = x25519(bytes(v.inputs['daemon_eph_secret']), parsed.value.eph);
  if (shared === null || hex(shared) !== hs['shared_secret'])
    problems.push('handshake.shared_secret differs');
  const keys = deriveSessionKeys(bytes(hs['shared_secret']), bytes(hs['transcript_hash']));
  if (hex(keys.modToDaemon) !== hs['key_mod_to_daemon']) problems.push('handshake.key_mod_to_daemon differs');
  if (hex(keys.daemonToMod) !== hs['key_daemon_to_mod']) problems.push('handshake.key_daemon_to_mod differs');
  for (const role of ['daemon', 'mod'] as const) {
    const message = signedMessage(role, bytes(hs['transcript_hash']));
    const key = role === 'daemon' ? daemon.publicKey : parsed.value.id;
    if (hex(message) !== hs[`${role}_signed_message`])
      problems.push(`handshake.${role}_signed_message differs`);
    if (!verify(key, message, bytes(hs[`${role}_signature`])))
      problems.push(`handshake.${role}_signature does not verify`);
  }
  return problems;
}

function receiver(v: GoldenVectors, direction: Direction, limits?: Partial<CodecLimits>, ready?: ReadyFrame) {
  const key = (d: Direction) =>
    bytes(v.handshake[d === 'daemon->mod' ? 'key_daemon_to_mod' : 'key_mod_to_daemon']);
  const role = direction === 'daemon->mod' ? 'mod' : 'daemon';
  const other: Direction = direction === 'daemon->mod' ? 'mod->daemon' : 'daemon->mod';
  return new Session({ role, receiveKey: key(direction), sendKey: key(other) }, limits, {
    ready: ready ?? { t: 'ready', events: true },
  });
}

/** §4, §8.2: encoding, sealing and opening the golden frames at each receiver. */
function frameProblems(v: GoldenVectors): string[] {
  const problems: string[] = [];
  const receivers = { 'daemon->mod': receiver(v, 'daemon->mod'), 'mod->daemon': receiver(v, 'mod->daemon') };
  for (const [index, frame] of v.frames.entries()) {
    const name = `frames[${index}]`;
    if (hex(encode(frame.bodies)) !== frame.plaintext) problems.push(`${name} encodes to other bytes`);
    const key = bytes(
      v.handshake[frame.direction === 'daemon->mod' ? 'key_daemon_to_mod' : 'key_mod_to_daemon'],
    );
    if (hex(sealFrame(aeadKey(key), frame.seq, bytes(frame.plaintext))) !== frame.frame)
      problems.push(`${name} seals to other bytes`);
    const opened = receivers[frame.direction].open(bytes(frame.frame));
    if (!opened.ok || hex(encode(opened.value)) !== frame.plaintext)
      problems.push(`${name} does not open to its bodies`);
  }
  return problems;
}

/** §8.3: every codec and session rejection with its code, and what must be accepted. */
function rejectionProblems(v: GoldenVectors): string[] {
  const problems: string[] = [];
  const { codec, codec_accepted, session, session_accepted } = v.rejections;
  for (const entry of codec) {
    const decoded = decode(bytes(entry.bytes), entry.limits);
    const got = decoded.ok ? 'accepted' : decoded.error.code;
    if (got !== entry.code) problems.push(`codec ${entry.name}: ${got}, not ${entry.code}`);
  }
  for (const entry of codec_accepted)
    if (!decode(bytes(entry.bytes)).ok) problems.push(`codec_accepted ${entry.name} is refused`);
  for (const entry of session) {
    const at = receiver(v, entry.direction, entry.limits, entry.ready);
    const outcomes = entry.frames.slice(0, entry.rejected_at + 1).map((frame) => at.open(bytes(frame)));
    const last = outcomes[outcomes.length - 1];
    const got = last === undefined || last.ok ? 'accepted' : last.error.code;
    if (outcomes.slice(0, -1).some((o) => !o.ok) || got !== entry.code)
      problems.push(`session ${entry.name}: ${got}, not ${entry.code}`);
  }
  for (const entry of session_accepted) {
    const at = receiver(v, entry.direction);
    if (entry.frames.some((frame) => !at.open(bytes(frame)).ok))
      problems.push(`session_accepted ${entry.name} is refused`);
  }
  return problems;
}

/** How many vectors were checked; throws `SelfCheckError` when any disagrees. */
export function selfCheck(vectors: GoldenVectors = GOLDEN_VECTORS): number {
  const problems = [...handshakeProblems(vectors), ...frameProblems(vectors), ...rejectionProblems(vectors)];
  if (problems.length > 0) throw new SelfCheckError(problems);
  const r = vectors.rejections;
  return (
    1 +
    vectors.frames.length +
    r.codec.length +
    r.codec_accepted.length +
    r.session.length +
    r.session_accepted.length
  );
}
