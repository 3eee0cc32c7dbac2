/**
 * The golden inputs and the golden run (PROTOCOL §8.1): fixed keys, nonces and ephemeral
 * secrets, the handshake run with that randomness injected, and the session frames that follow.
 * Shared by the vector generator, the rejection vectors and the golden test.
 */
import { PROTOCOL_ERRORS, type ProtocolErrorCode } from '../errors.ts';
import type { FrameBody } from '../frames.ts';
import { DaemonHandshake, ModHandshake, type Established, type RandomSource } from '../handshake.ts';
import { identityFromSeed } from '../keys.ts';

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
export const unhex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));

/** 32 bytes counting up from `start`: readable and obviously not secret. */
export function counting(start: number, length = 32): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (start + i) & 0xff);
}

/** A RandomSource that hands out the given byte strings in order (PROTOCOL §8.1). */
export function scriptedRandom(...chunks: Uint8Array[]): RandomSource {
  const queue = [...chunks];
  return (length) => {
    const next = queue.shift();
    if (!next || next.length !== length) throw new Error(`scripted random: no ${length}-byte chunk left`);
    return next;
  };
}

export const GOLDEN_INPUTS = Object.freeze({
  modSeed: counting(0x00),
  daemonSeed: counting(0x20),
  modNonce: counting(0x40),
  modEphSecret: counting(0x60),
  daemonNonce: counting(0x80),
  daemonEphSecret: counting(0xa0),
  offeredVersions: [1],
  modVersion: '2.0.47',
});

export interface GoldenHandshake {
  hello: Uint8Array;
  welcome: Uint8Array;
  auth: Uint8Array;
  daemon: Established;
  mod: Established;
}

/** Runs the handshake on the golden inputs, daemon and mod machines feeding each other. */
export function runGoldenHandshake(): GoldenHandshake {
  const g = GOLDEN_INPUTS;
  const modIdentity = identityFromSeed(g.modSeed);
  const daemonIdentity = identityFromSeed(g.daemonSeed);
  const mod = new ModHandshake({
    identity: modIdentity,
    daemonPublicKey: daemonIdentity.publicKey,
    modVersion: g.modVersion,
    versions: g.offeredVersions,
    random: scriptedRandom(g.modNonce, g.modEphSecret),
  });
  const daemon = new DaemonHandshake({
    identity: daemonIdentity,
    trustedModKeys: () => [modIdentity.publicKey],
    random: scriptedRandom(g.daemonNonce, g.daemonEphSecret),
  });
  const hello = mod.start();
  const welcomeStep = daemon.receive(hello);
  const authStep = mod.receive(welcomeStep.reply as Uint8Array);
  const doneStep = daemon.receive(authStep.reply as Uint8Array);
  if (!authStep.established || !doneStep.established) throw new Error('golden handshake failed');
  return {
    hello,
    welcome: welcomeStep.reply as Uint8Array,
    auth: authStep.reply as Uint8Array,
    daemon: doneStep.established,
    mod: authStep.established,
  };
}

export type Direction = 'daemon->mod' | 'mod->daemon';

/** The stream and player of the golden events (PROTOCOL §9). */
export const GOLDEN_STREAM = 'Zm9vYmFyYmF6cXV4';
const GOLDEN_PLAYER = { platform_id: '76561190000000001', social_id: null };

/** The player of the golden panel write, and the state the mod answers it with. */
const GOLDEN_PLAYER_REF = { platform_id: GOLDEN_PLAYER.platform_id };
const GOLDEN_UNMUTED = {
  player: GOLDEN_PLAYER,
  ban: { banned: false, reason: null, permanent: false, expires_at: null, banned_at: null, banned_by: null },
  mute: { muted: false, permanent: false, muted_at: null, duration_minutes: null, channels: [] },
};

/**
 * The session frames of the vectors, in the order they cross the link, each a batch of bodies
 * (PROTOCOL §4.2): `ready` shares the daemon's first frame with a request, two requests and
 * their answers (in the other order) travel two to a frame, and a mod's ping rides with them.
 */
export const GOLDEN_FRAMES: ReadonlyArray<{ direction: Direction; bodies: FrameBody[] }> = [
  {
    direction: 'daemon->mod',
    bodies: [
      { t: 'ready', events: true },
      { t: 'req', id: 1, op: 'server.status', args: {}, deadline_ms: 5000 },
    ],
  },
  { direction: 'mod->daemon', bodies: [{ t: 'res', id: 1, ok: true, result: { player_count: 12 } }] },
  { direction: 'daemon->mod', bodies: [{ t: 'ping', n: 1 }] },
  { direction: 'mod->daemon', bodies: [{ t: 'pong', n: 1 }] },
  {
    direction: 'daemon->mod',
    bodies: [
      { t: 'req', id: 2, op: 'server.status', args: {}, deadline_ms: 2500, op_id: 'op-7f3a' },
      { t: 'req', id: 3, op: 'server.status', args: {}, deadline_ms: 5000 },
    ],
  },
  {
    direction: 'mod->daemon',
    bodies: [
      { t: 'res', id: 3, ok: true, result: { player_count: null } },
      {
        t: 'res',
        id: 2,
        ok: false,
        error: { code: 'unavailable', message: 'world is loading', details: { retry_after_sec: 5 } },
      },
      { t: 'ping', n: 1 },
    ],
  },
  { direction: 'daemon->mod', bodies: [{ t: 'pong', n: 1 }] },
  // PROTOCOL §9: game events of one stream, two bodies in one frame (a burst), and their
  // acknowledgements: one per body, in body order, each naming the highest seq of its body
  // (§9.3). The events are valid (§9.5), so the reference daemon stores all three.
  {
    direction: 'mod->daemon',
    bodies: [
      {
        t: 'events',
        stream: GOLDEN_STREAM,
        events: [
          {
            seq: 1,
            type: 'player.joined',
            at: '2025-06-01T12:00:00.000Z',
            data: { player: GOLDEN_PLAYER, char_name: 'Rook', ip: '203.0.113.7' },
          },
          {
            seq: 2,
            type: 'player.banned',
            at: '2025-06-01T12:00:01.500Z',
            data: {
              player: GOLDEN_PLAYER,
              ban: {
                banned: true,
                reason: 'griefing',
                permanent: true,
                expires_at: null,
                banned_at: '2025-06-01T12:00:01.500Z',
                banned_by: { platform_id: null, social_id: null, name: 'console' },
              },
            },
          },
        ],
      },
      {
        t: 'events',
        stream: GOLDEN_STREAM,
        events: [
          {
            seq: 3,
            type: 'command.executed',
            at: '2025-06-01T12:00:02.000Z',
            data: { at: '2025-06-01 12:00:02.000', command: '#Online', result: '12 players', actor: null },
          },
        ],
      },
    ],
  },
  {
    direction: 'daemon->mod',
    bodies: [
      { t: 'events_ack', stream: GOLDEN_STREAM, seq: 2 },
      { t: 'events_ack', stream: GOLDEN_STREAM, seq: 3 },
    ],
  },
  // PROTOCOL §6.6, "Where a write comes from": a write made in the operator's panel carries the
  // optional `actor.source`; a mod that does not know the field ignores it (§2.1).
  {
    direction: 'daemon->mod',
    bodies: [
      {
        t: 'req',
        id: 4,
        op: 'players.unmute',
        args: {
          ref: GOLDEN_PLAYER_REF,
          actor: {
            key_id: 'session:tok123',
            name: 'panel',
            platform_id: null,
            social_id: null,
            source: 'panel',
          },
        },
        deadline_ms: 10000,
        op_id: 'op-9c01.0',
      },
    ],
  },
  { direction: 'mod->daemon', bodies: [{ t: 'res', id: 4, ok: true, result: GOLDEN_UNMUTED }] },
];

export function keyFor(handshake: GoldenHandshake, direction: Direction): Uint8Array {
  return direction === 'daemon->mod' ? handshake.daemon.sendKey : handshake.mod.sendKey;
}

export function closeCodeOf(code: ProtocolErrorCode): number {
  return PROTOCOL_ERRORS[code].closeCode;
}
