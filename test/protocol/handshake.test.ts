import { describe, expect, it } from 'vitest';
import { decode, encode } from '../../protocol/codec.ts';
import type { ProtocolErrorCode } from '../../protocol/errors.ts';
import { DaemonHandshake, ModHandshake, type HandshakeStep } from '../../protocol/handshake.ts';
import {
  signedMessage,
  transcriptBytes,
  transcriptHash,
  type Hello,
  type Welcome,
} from '../../protocol/handshake-messages.ts';
import { generateIdentity, keysEqual, sign } from '../../protocol/keys.ts';
import { expectRejected, handshakeInMemory, identities, type Identities } from './support.ts';

function machines(
  ids: Identities,
  opts: { modVersions?: number[]; daemonVersions?: number[]; trusted?: Uint8Array[] } = {},
) {
  const mod = new ModHandshake({
    identity: ids.mod,
    daemonPublicKey: ids.daemon.publicKey,
    modVersion: '2.0.47',
    ...(opts.modVersions ? { versions: opts.modVersions } : {}),
  });
  const daemon = new DaemonHandshake({
    identity: ids.daemon,
    trustedModKeys: () => opts.trusted ?? [ids.mod.publicKey],
    ...(opts.daemonVersions ? { versions: opts.daemonVersions } : {}),
  });
  return { mod, daemon };
}

function expectStepRejected(step: HandshakeStep, code: ProtocolErrorCode): void {
  expect(step.reply).toBeUndefined();
  expect(step.established).toBeUndefined();
  expectRejected(step.error ? { ok: false, error: step.error } : { ok: true, value: step }, code);
}

function fields(bytes: Uint8Array): Record<string, unknown> {
  return { ...(decode(bytes) as { value: Record<string, unknown> }).value };
}

describe('the handshake', () => {
  it('establishes matching keys, transcript and peer identities on both sides', () => {
    const ids = identities();
    const link = handshakeInMemory(ids);
    expect(keysEqual(link.mod.sendKey, link.daemon.receiveKey)).toBe(true);
    expect(keysEqual(link.daemon.sendKey, link.mod.receiveKey)).toBe(true);
    expect(keysEqual(link.mod.sendKey, link.mod.receiveKey)).toBe(false);
    expect(keysEqual(link.mod.transcriptHash, link.daemon.transcriptHash)).toBe(true);
    expect(keysEqual(link.daemon.peerId, ids.mod.publicKey)).toBe(true);
    expect(keysEqual(link.mod.peerId, ids.daemon.publicKey)).toBe(true);
    expect(link.daemon.modVersion).toBe('2.0.47');
    expect(link.daemon.version).toBe(1);
  });

  it('moves both machines through their named states', () => {
    const { mod, daemon } = machines(identities());
    expect([mod.state, daemon.state]).toEqual(['start', 'await_hello']);
    const welcome = daemon.receive(mod.start());
    expect([mod.state, daemon.state]).toEqual(['await_welcome', 'await_auth']);
    const auth = mod.receive(welcome.reply as Uint8Array);
    daemon.receive(auth.reply as Uint8Array);
    expect([mod.state, daemon.state]).toEqual(['done', 'done']);
  });

  it('derives fresh keys for every handshake between the same identities', () => {
    const ids = identities();
    expect(keysEqual(handshakeInMemory(ids).mod.sendKey, handshakeInMemory(ids).mod.sendKey)).toBe(false);
  });

  it('calls trustedModKeys on every handshake, so a reload applies to the next one', () => {
    const ids = identities();
    let trusted: Uint8Array[] = [ids.mod.publicKey];
    let calls = 0;
    const daemon = (): DaemonHandshake =>
      new DaemonHandshake({ identity: ids.daemon, trustedModKeys: () => (calls++, trusted) });
    const hello = (): Uint8Array =>
      new ModHandshake({ identity: ids.mod, daemonPublicKey: ids.daemon.publicKey, modVersion: 'x' }).start();
    expect(daemon().receive(hello()).error).toBeUndefined();
    trusted = [];
    expectStepRejected(daemon().receive(hello()), 'unknown_identity');
    expect(calls).toBe(2);
  });
});

describe('version negotiation', () => {
  it('picks the highest version both sides speak', () => {
    const { mod, daemon } = machines(identities(), { modVersions: [1, 2, 3], daemonVersions: [1, 2] });
    const welcome = daemon.receive(mod.start());
    expect(fields(welcome.reply as Uint8Array)['version']).toBe(2);
    expect(mod.receive(welcome.reply as Uint8Array).established?.version).toBe(2);
  });

  it('rejects a hello with no common version with unsupported_version', () => {
    const { mod, daemon } = machines(identities(), { modVersions: [2, 3] });
    expectStepRejected(daemon.receive(mod.start()), 'unsupported_version');
    expect(daemon.state).toBe('failed');
  });

  it('rejects a welcome choosing a version the mod did not offer with unsupported_version', () => {
    const ids = identities();
    const { mod, daemon } = machines(ids, { daemonVersions: [1] });
    const welcome = fields(daemon.receive(mod.start()).reply as Uint8Array);
    expectStepRejected(mod.receive(encode({ ...welcome, version: 7 })), 'unsupported_version');
  });

  it('detects a downgrade: versions stripped from the hello break the daemon signature', () => {
    const { mod, daemon } = machines(identities(), { modVersions: [1, 2], daemonVersions: [1, 2] });
    const hello = fields(mod.start());
    const welcome = daemon.receive(encode({ ...hello, versions: [1] })); // a man in the middle strips v2
    expectStepRejected(mod.receive(welcome.reply as Uint8Array), 'bad_signature');
  });
});

describe('identities', () => {
  it('rejects an untrusted mod key with unknown_identity', () => {
    const { mod, daemon } = machines(identities(), { trusted: [generateIdentity().publicKey] });
    expectStepRejected(daemon.receive(mod.start()), 'unknown_identity');
  });

  it('rejects a daemon key other than the pinned one with unknown_identity', () => {
    const ids = identities();
    const impostor = { daemon: generateIdentity(), mod: ids.mod };
    const mod = new ModHandshake({
      identity: ids.mod,
      daemonPublicKey: ids.daemon.publicKey,
      modVersion: 'x',
    });
    const daemon = new DaemonHandshake({
      identity: impostor.daemon,
      trustedModKeys: () => [ids.mod.publicKey],
    });
    expectStepRejected(mod.receive(daemon.receive(mod.start()).reply as Uint8Array), 'unknown_identity');
  });

  it('rejects a welcome whose signature does not verify with bad_signature', () => {
    const { mod, daemon } = machines(identities());
    const welcome = fields(daemon.receive(mod.start()).reply as Uint8Array);
    const sig = new Uint8Array(welcome['sig'] as Uint8Array);
    sig[0] = (sig[0] as number) ^ 1;
    expectStepRejected(mod.receive(encode({ ...welcome, sig })), 'bad_signature');
  });

  it('rejects an auth whose signature does not verify with bad_signature', () => {
    const { mod, daemon } = machines(identities());
    const auth = fields(mod.receive(daemon.receive(mod.start()).reply as Uint8Array).reply as Uint8Array);
    const sig = new Uint8Array(auth['sig'] as Uint8Array);
    sig[63] = (sig[63] as number) ^ 1;
    expectStepRejected(daemon.receive(encode({ ...auth, sig })), 'bad_signature');
  });

  it('rejects an auth signed over the right transcript with the daemon label as bad_signature', () => {
    const ids = identities();
    const { mod, daemon } = machines(ids);
    const hello = fields(mod.start());
    const welcome = fields(daemon.receive(encode(hello)).reply as Uint8Array);
    const th = transcriptHash({
      version: 1,
      offered: [1],
      hello: hello as unknown as Hello,
      welcome: welcome as unknown as Welcome,
    });
    const sig = sign(ids.mod.secretKey, signedMessage('daemon', th));
    const established = mod.receive(encode(welcome)).established;
    expect(keysEqual(established?.transcriptHash ?? new Uint8Array(0), th)).toBe(true); // the right TH
    expectStepRejected(daemon.receive(encode({ t: 'auth', sig })), 'bad_signature');
  });
});

describe('malformed handshake messages', () => {
  it('rejects a message that is not the expected t with unexpected_frame', () => {
    const { daemon } = machines(identities());
    expectStepRejected(daemon.receive(encode({ t: 'auth', sig: new Uint8Array(64) })), 'unexpected_frame');
  });

  it('rejects every message after a failure with unexpected_frame', () => {
    const { mod, daemon } = machines(identities(), { modVersions: [9] });
    const hello = mod.start();
    expectStepRejected(daemon.receive(hello), 'unsupported_version');
    expectStepRejected(daemon.receive(hello), 'unexpected_frame');
  });

  it('rejects a second welcome at the mod with unexpected_frame', () => {
    const { mod, daemon } = machines(identities());
    const welcome = daemon.receive(mod.start()).reply as Uint8Array;
    expect(mod.receive(welcome).error).toBeUndefined();
    expectStepRejected(mod.receive(welcome), 'unexpected_frame');
  });

  it.each([
    ['a missing nonce', { nonce: undefined }],
    ['a 31-byte id', { id: new Uint8Array(31) }],
    ['an eph given as str', { eph: 'x'.repeat(32) }],
    ['role daemon', { role: 'daemon' }],
    ['an empty versions list', { versions: [] }],
    ['a version of 256', { versions: [256] }],
    ['an empty mod_version', { mod_version: '' }],
    ['a 129-byte mod_version', { mod_version: 'v'.repeat(129) }],
  ])('rejects a hello with %s as invalid_message', (_name, change) => {
    const { mod, daemon } = machines(identities());
    expectStepRejected(daemon.receive(encode({ ...fields(mod.start()), ...change })), 'invalid_message');
  });

  it('rejects a hello whose ephemeral key is a low-order point as invalid_message', () => {
    const { mod, daemon } = machines(identities());
    expectStepRejected(
      daemon.receive(encode({ ...fields(mod.start()), eph: new Uint8Array(32) })),
      'invalid_message',
    );
  });

  it('rejects every proper prefix of a hello as malformed, one byte at a time', () => {
    const ids = identities();
    const hello = machines(ids).mod.start();
    for (let length = 1; length < hello.length; length += 1) {
      expectStepRejected(machines(ids).daemon.receive(hello.subarray(0, length)), 'malformed');
    }
  });

  it('rejects an oversized hello with frame_too_large', () => {
    const { mod, daemon } = machines(identities());
    expectStepRejected(
      daemon.receive(encode({ ...fields(mod.start()), pad: 'x'.repeat(5000) })),
      'frame_too_large',
    );
  });

  it('ignores unknown extra fields in a hello', () => {
    const { mod, daemon } = machines(identities());
    expect(daemon.receive(encode({ ...fields(mod.start()), future: 1 })).error).toBeUndefined();
  });
});

describe('the transcript', () => {
  it('lays out the fields of PROTOCOL §3.4 in order', () => {
    const bytes = transcriptBytes({
      version: 1,
      offered: [1, 2],
      hello: {
        id: new Uint8Array(32).fill(1),
        nonce: new Uint8Array(32).fill(2),
        eph: new Uint8Array(32).fill(3),
        mod_version: 'é',
      },
      welcome: {
        id: new Uint8Array(32).fill(4),
        nonce: new Uint8Array(32).fill(5),
        eph: new Uint8Array(32).fill(6),
      },
    });
    const text = Buffer.from(bytes);
    expect(text.subarray(0, 19).toString('ascii')).toBe('modgate/1 handshake');
    expect([...text.subarray(19, 23)]).toEqual([1, 2, 1, 2]);
    expect(text[23]).toBe(1);
    expect(text[23 + 96]).toBe(0); // u16 BE length of 'é' (2 UTF-8 bytes)
    expect(text[23 + 97]).toBe(2);
    expect(text.subarray(23 + 98, 23 + 100).toString('utf8')).toBe('é');
    expect(text.length).toBe(19 + 4 + 96 + 2 + 2 + 96);
    expect(text[text.length - 1]).toBe(6);
  });
});
