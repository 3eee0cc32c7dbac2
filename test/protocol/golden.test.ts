/**
 * The golden vectors (PROTOCOL §8): the implementation must reproduce every byte of
 * protocol/vectors/golden.json from its inputs, and tweetnacl (libsodium-compatible) must accept
 * both handshake signatures. Mod authors can port this file to check their own implementation.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { decode, encode } from '../../protocol/codec.ts';
import type { ProtocolErrorCode } from '../../protocol/errors.ts';
import { DaemonHandshake, ModHandshake, type HandshakeStep } from '../../protocol/handshake.ts';
import { generateEphemeral, hkdfSha256, identityFromSeed, verify, x25519 } from '../../protocol/keys.ts';
import { aeadKey, sealFrame } from '../../protocol/aead.ts';
import type { CodecLimits } from '../../protocol/msgpack-scan.ts';
import type { ReadyFrame } from '../../protocol/frames.ts';
import { Session } from '../../protocol/session.ts';
import { buildGoldenVectors } from '../../protocol/vectors/generate.ts';
import { scriptedRandom } from '../../protocol/vectors/golden-run.ts';
import { expectRejected } from './support.ts';

interface Rejection {
  name: string;
  code: ProtocolErrorCode;
  close_code: number;
}
interface Golden {
  inputs: Record<string, string> & { offered_versions: number[]; mod_version: string };
  handshake: Record<string, string>;
  frames: Array<{
    direction: 'daemon->mod' | 'mod->daemon';
    seq: number;
    bodies: unknown[];
    plaintext: string;
    frame: string;
  }>;
  rejections: {
    codec: Array<Rejection & { bytes: string; limits?: Partial<CodecLimits> }>;
    codec_accepted: Array<{ name: string; bytes: string }>;
    handshake: Array<
      Rejection & {
        receiver: 'daemon' | 'mod';
        messages: string[];
        trusted_mod_keys?: string[];
        pinned_daemon_key?: string;
      }
    >;
    session: Array<
      Rejection & {
        direction: 'daemon->mod' | 'mod->daemon';
        frames: string[];
        rejected_at: number;
        limits?: Partial<CodecLimits>;
        ready?: ReadyFrame;
      }
    >;
    session_accepted: Array<{
      name: string;
      direction: 'daemon->mod' | 'mod->daemon';
      frames: string[];
      bodies: unknown[];
    }>;
  };
}

const golden = JSON.parse(
  readFileSync(new URL('../../protocol/vectors/golden.json', import.meta.url), 'utf8'),
) as Golden;
const b = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const h = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const input = (name: string): Uint8Array => b(golden.inputs[name] as string);

const modIdentity = identityFromSeed(input('mod_seed'));
const daemonIdentity = identityFromSeed(input('daemon_seed'));

function modMachine(pinned = daemonIdentity.publicKey): ModHandshake {
  return new ModHandshake({
    identity: modIdentity,
    daemonPublicKey: pinned,
    modVersion: golden.inputs.mod_version,
    versions: golden.inputs.offered_versions,
    random: scriptedRandom(input('mod_nonce'), input('mod_eph_secret')),
  });
}

function daemonMachine(trusted = [modIdentity.publicKey]): DaemonHandshake {
  return new DaemonHandshake({
    identity: daemonIdentity,
    trustedModKeys: () => trusted,
    random: scriptedRandom(input('daemon_nonce'), input('daemon_eph_secret')),
  });
}

/** Session keys by direction: the daemon sends daemon->mod, the mod sends mod->daemon. */
const keys = {
  'daemon->mod': b(golden.handshake['key_daemon_to_mod'] as string),
  'mod->daemon': b(golden.handshake['key_mod_to_daemon'] as string),
};

/** A daemon receiver has sent `{t:'ready', events:true}` unless the vector gives its `ready` (§8.3). */
function receiver(
  direction: 'daemon->mod' | 'mod->daemon',
  limits?: Partial<CodecLimits>,
  ready: ReadyFrame = { t: 'ready', events: true },
): Session {
  const role = direction === 'daemon->mod' ? 'mod' : 'daemon';
  const other = direction === 'daemon->mod' ? keys['mod->daemon'] : keys['daemon->mod'];
  return new Session({ role, receiveKey: keys[direction], sendKey: other }, limits, { ready });
}

describe('golden vectors: generation', () => {
  it('are exactly what scripts/gen-vectors.ts generates today', () => {
    // event_refusals is the daemon's section (test/daemon/events/refusal-vectors.test.ts).
    const { event_refusals: _daemonSection, ...protocolSections } = golden as Golden & {
      event_refusals?: unknown;
    };
    expect(JSON.parse(JSON.stringify(buildGoldenVectors()))).toEqual(protocolSections);
  });
});

describe('golden vectors: keys', () => {
  it('derive both public keys from their seeds, as tweetnacl does', () => {
    for (const who of ['mod', 'daemon']) {
      const seed = input(`${who}_seed`);
      expect(h(identityFromSeed(seed).publicKey)).toBe(golden.inputs[`${who}_public_key`]);
      expect(h(nacl.sign.keyPair.fromSeed(seed).publicKey)).toBe(golden.inputs[`${who}_public_key`]);
    }
  });

  it('derive both ephemeral public keys and the shared secret', () => {
    expect(h(generateEphemeral(input('mod_eph_secret')).publicKey)).toBe(golden.inputs['mod_eph_public']);
    expect(h(generateEphemeral(input('daemon_eph_secret')).publicKey)).toBe(
      golden.inputs['daemon_eph_public'],
    );
    const shared = x25519(input('mod_eph_secret'), input('daemon_eph_public')) as Uint8Array;
    expect(h(shared)).toBe(golden.handshake['shared_secret']);
    expect(h(nacl.scalarMult(input('daemon_eph_secret'), input('mod_eph_public')))).toBe(
      golden.handshake['shared_secret'],
    );
  });
});

describe('golden vectors: handshake', () => {
  it('reproduces hello, welcome and auth byte for byte', () => {
    const mod = modMachine();
    const daemon = daemonMachine();
    const hello = mod.start();
    expect(h(hello)).toBe(golden.handshake['hello']);
    const welcome = daemon.receive(hello);
    expect(h(welcome.reply as Uint8Array)).toBe(golden.handshake['welcome']);
    const auth = mod.receive(welcome.reply as Uint8Array);
    expect(h(auth.reply as Uint8Array)).toBe(golden.handshake['auth']);
    const done = daemon.receive(auth.reply as Uint8Array);
    expect(h(done.established?.sendKey as Uint8Array)).toBe(golden.handshake['key_daemon_to_mod']);
    expect(h(auth.established?.sendKey as Uint8Array)).toBe(golden.handshake['key_mod_to_daemon']);
    expect(h(auth.established?.transcriptHash as Uint8Array)).toBe(golden.handshake['transcript_hash']);
  });

  it('hashes the transcript to TH and derives both session keys from TH and the shared secret', () => {
    const th = createHash('sha256')
      .update(b(golden.handshake['transcript'] as string))
      .digest();
    expect(h(th)).toBe(golden.handshake['transcript_hash']);
    const shared = b(golden.handshake['shared_secret'] as string);
    expect(h(hkdfSha256(shared, th, 'modgate/1 mod->daemon'))).toBe(golden.handshake['key_mod_to_daemon']);
    expect(h(hkdfSha256(shared, th, 'modgate/1 daemon->mod'))).toBe(golden.handshake['key_daemon_to_mod']);
  });

  it('signs the role label followed by TH', () => {
    const th = golden.handshake['transcript_hash'] as string;
    expect(golden.handshake['daemon_signed_message']).toBe(
      Buffer.from('modgate/1 daemon').toString('hex') + th,
    );
    expect(golden.handshake['mod_signed_message']).toBe(Buffer.from('modgate/1 mod').toString('hex') + th);
  });

  it('has signatures that tweetnacl and node:crypto both accept', () => {
    const checks = [
      ['daemon', daemonIdentity.publicKey],
      ['mod', modIdentity.publicKey],
    ] as const;
    for (const [who, publicKey] of checks) {
      const message = b(golden.handshake[`${who}_signed_message`] as string);
      const signature = b(golden.handshake[`${who}_signature`] as string);
      expect(nacl.sign.detached.verify(message, signature, publicKey)).toBe(true);
      expect(verify(publicKey, message, signature)).toBe(true);
    }
  });
});

describe('golden vectors: session frames', () => {
  it('encode each batch of bodies to its plaintext and seal it to its frame', () => {
    for (const frame of golden.frames) {
      expect(h(encode(frame.bodies))).toBe(frame.plaintext);
      expect(h(sealFrame(aeadKey(keys[frame.direction]), frame.seq, b(frame.plaintext)))).toBe(frame.frame);
    }
  });

  it('open in order to their bodies at each receiver', () => {
    const receivers = { 'daemon->mod': receiver('daemon->mod'), 'mod->daemon': receiver('mod->daemon') };
    for (const frame of golden.frames) {
      expect(receivers[frame.direction].open(b(frame.frame))).toEqual({ ok: true, value: frame.bodies });
    }
  });

  it('include frames of several bodies, ready sharing the first frame with a request', () => {
    expect(golden.frames[0]?.bodies).toMatchObject([{ t: 'ready' }, { t: 'req', id: 1 }]);
    expect(Math.max(...golden.frames.map((frame) => frame.bodies.length))).toBeGreaterThanOrEqual(3);
  });

  it('have plaintexts that are a fixarray header followed by each body as encoded alone', () => {
    for (const frame of golden.frames) {
      const header = h(Uint8Array.of(0x90 | frame.bodies.length)); // every golden batch is under 16
      expect(frame.plaintext).toBe(header + frame.bodies.map((body) => h(encode(body))).join(''));
    }
  });
});

describe('golden vectors: rejections', () => {
  it.each(golden.rejections.codec)('codec: $name → $code ($close_code)', (entry) => {
    const error = expectRejected(decode(b(entry.bytes), entry.limits), entry.code);
    expect(error.closeCode).toBe(entry.close_code);
  });

  it.each(golden.rejections.codec_accepted)('codec accepts $name', (entry) => {
    expect(decode(b(entry.bytes)).ok).toBe(true);
  });

  it.each(golden.rejections.handshake)('handshake ($receiver): $name → $code ($close_code)', (entry) => {
    let step: HandshakeStep = {};
    if (entry.receiver === 'daemon') {
      const daemon = daemonMachine(entry.trusted_mod_keys ? entry.trusted_mod_keys.map(b) : undefined);
      for (const message of entry.messages) step = daemon.receive(b(message));
    } else {
      const mod = modMachine(entry.pinned_daemon_key ? b(entry.pinned_daemon_key) : undefined);
      mod.start();
      for (const message of entry.messages) step = mod.receive(b(message));
    }
    const error = expectRejected(
      step.error ? { ok: false, error: step.error } : { ok: true, value: step },
      entry.code,
    );
    expect(error.closeCode).toBe(entry.close_code);
  });

  it.each(golden.rejections.session)('session ($direction): $name → $code ($close_code)', (entry) => {
    const session = receiver(entry.direction, entry.limits, entry.ready);
    entry.frames.forEach((frame, index) => {
      const opened = session.open(b(frame));
      if (index < entry.rejected_at) expect(opened.ok).toBe(true);
      if (index === entry.rejected_at)
        expect(expectRejected(opened, entry.code).closeCode).toBe(entry.close_code);
    });
  });

  it.each(golden.rejections.session_accepted)('session ($direction) accepts $name', (entry) => {
    const session = receiver(entry.direction);
    const bodies = entry.frames.flatMap((frame) => {
      const opened = session.open(b(frame));
      if (!opened.ok) throw opened.error;
      return opened.value;
    });
    expect(JSON.parse(JSON.stringify(bodies))).toEqual(entry.bodies);
  });
});
