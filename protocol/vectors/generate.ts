/**
 * Builds the golden test vectors (PROTOCOL §8) by running the real handshake and session code on
 * the golden inputs. Deterministic: Ed25519 signatures are deterministic and msgpack output
 * follows key order. `scripts/gen-vectors.ts` writes the result to `protocol/vectors/golden.json`;
 * `test/protocol/golden.test.ts` checks the implementation against that file.
 */
import { aeadKey, sealFrame } from '../aead.ts';
import { decode, encode } from '../codec.ts';
import { parseHello, parseWelcome, signedMessage, transcriptBytes } from '../handshake-messages.ts';
import { generateEphemeral, identityFromSeed, x25519 } from '../keys.ts';
import {
  GOLDEN_FRAMES,
  GOLDEN_INPUTS,
  hex,
  keyFor,
  runGoldenHandshake,
  type Direction,
  type GoldenHandshake,
} from './golden-run.ts';
import {
  decisionCodecAccepted,
  decisionCodecCases,
  decisionHandshakeCases,
  decisionSessionCases,
  sessionAcceptedCases,
} from './decisions.ts';
import { eventSessionAccepted, eventSessionCases } from './event-vectors.ts';
import { codecAcceptedCases, codecCases, handshakeCases, sessionCases } from './rejections.ts';

function handshakeSection(h: GoldenHandshake): Record<string, unknown> {
  const hello = parseHello((decode(h.hello) as { value: unknown }).value);
  const welcome = parseWelcome((decode(h.welcome) as { value: unknown }).value);
  if (!hello.ok || !welcome.ok) throw new Error('golden messages do not parse');
  const transcript = transcriptBytes({
    version: welcome.value.version,
    offered: hello.value.versions,
    hello: hello.value,
    welcome: welcome.value,
  });
  const modEph = generateEphemeral(GOLDEN_INPUTS.modEphSecret);
  const daemonEph = generateEphemeral(GOLDEN_INPUTS.daemonEphSecret);
  const shared = x25519(modEph.secretKey, daemonEph.publicKey) as Uint8Array;
  const auth = decode(h.auth) as { ok: true; value: { sig: Uint8Array } };
  return {
    hello: hex(h.hello),
    welcome: hex(h.welcome),
    auth: hex(h.auth),
    transcript: hex(transcript),
    transcript_hash: hex(h.daemon.transcriptHash),
    daemon_signed_message: hex(signedMessage('daemon', h.daemon.transcriptHash)),
    daemon_signature: hex(welcome.value.sig),
    mod_signed_message: hex(signedMessage('mod', h.daemon.transcriptHash)),
    mod_signature: hex(auth.value.sig),
    shared_secret: hex(shared),
    key_mod_to_daemon: hex(h.mod.sendKey),
    key_daemon_to_mod: hex(h.daemon.sendKey),
  };
}

function framesSection(h: GoldenHandshake): Array<Record<string, unknown>> {
  const seqs: Record<Direction, number> = { 'daemon->mod': 0, 'mod->daemon': 0 };
  return GOLDEN_FRAMES.map(({ direction, bodies }) => {
    seqs[direction] += 1;
    const plaintext = encode(bodies);
    const frame = sealFrame(aeadKey(keyFor(h, direction)), seqs[direction], plaintext);
    return { direction, seq: seqs[direction], bodies, plaintext: hex(plaintext), frame: hex(frame) };
  });
}

/** The whole vectors document, as written to golden.json. */
export function buildGoldenVectors(): Record<string, unknown> {
  const g = GOLDEN_INPUTS;
  const h = runGoldenHandshake();
  const modIdentity = identityFromSeed(g.modSeed);
  const daemonIdentity = identityFromSeed(g.daemonSeed);
  return {
    about:
      'modgate mod-link golden vectors (protocol/PROTOCOL.md §8). Hex is lowercase; every value is reproducible ' +
      'from the inputs. Regenerate with `npx tsx scripts/gen-vectors.ts`.',
    protocol_version: 1,
    inputs: {
      mod_seed: hex(g.modSeed),
      mod_public_key: hex(modIdentity.publicKey),
      daemon_seed: hex(g.daemonSeed),
      daemon_public_key: hex(daemonIdentity.publicKey),
      mod_nonce: hex(g.modNonce),
      mod_eph_secret: hex(g.modEphSecret),
      mod_eph_public: hex(generateEphemeral(g.modEphSecret).publicKey),
      daemon_nonce: hex(g.daemonNonce),
      daemon_eph_secret: hex(g.daemonEphSecret),
      daemon_eph_public: hex(generateEphemeral(g.daemonEphSecret).publicKey),
      offered_versions: g.offeredVersions,
      mod_version: g.modVersion,
    },
    handshake: handshakeSection(h),
    frames: framesSection(h),
    rejections: {
      codec: [...codecCases(), ...decisionCodecCases()],
      codec_accepted: [...codecAcceptedCases(), ...decisionCodecAccepted()],
      handshake: [...handshakeCases(h), ...decisionHandshakeCases(h)],
      session: [...sessionCases(h), ...decisionSessionCases(h), ...eventSessionCases(h)],
      session_accepted: [...sessionAcceptedCases(h), ...eventSessionAccepted(h)],
    },
  };
}
