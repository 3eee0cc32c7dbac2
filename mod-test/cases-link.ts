/**
 * The link cases: the handshake as the mod plays it (PROTOCOL §3), what it must refuse on a
 * connection of its own (a welcome from another key, a replayed welcome, a version it did not
 * offer, a request before `ready`, a handshake that never finishes), the frames it must reject
 * with the close code of §5.3 (forged tags, replayed and reordered seq, oversize messages, ext
 * types, duplicate keys, invalid UTF-8, …), heartbeats (§5.1) and redialling (§5.4).
 */
import { PROTOCOL_ERRORS, type ProtocolErrorCode } from '../protocol/errors.ts';
import { encode } from '../protocol/codec.ts';
import { generateIdentity } from '../protocol/keys.ts';
import { MAX_MOD_VERSION_BYTES } from '../protocol/handshake-messages.ts';
import { backoffCeiling, DEFAULT_BACKOFF } from '../protocol/backoff.ts';
import { check } from './answers.ts';
import { fail, type CaseContext, type ModCase } from './case.ts';
import type { HarnessLink, LinkClose } from './harness-link.ts';

/**
 * How long a mod may take to close after a frame or handshake message it must reject, unless the
 * run says otherwise. A conforming mod ends the wait by closing, so only a mod that takes the
 * message in silence waits it out: generous, so that a loaded machine, on which a conforming mod
 * can take seconds to read a 1 MiB message and close, does not fail it (3 s did).
 */
export const REJECT_WITHIN_MS = 10_000;
/** PROTOCOL §3.7: the mod's handshake deadline, 5 s by default; the harness allows a margin. */
const HANDSHAKE_DEADLINE_MS = 5_000;
/** PROTOCOL §5.4: after `superseded` the mod waits the full maximum backoff (10 s by default). */
const SUPERSEDED_QUIET_MS = 2_000;
/**
 * PROTOCOL §5.4: `link.backoff` times the first redials, attempts k = 0 to 4, each against its
 * ceiling (250 ms, 500 ms, 1 s, 2 s and 4 s).
 */
const BACKOFF_ATTEMPTS = 5;
/** What a redial may take beyond its ceiling: closing, connecting and a loaded machine's timers. */
const BACKOFF_SLACK_MS = 500;
/**
 * A tight loop is judged by counting, not by timing: TIGHT_REDIALS redials whose waits (each from
 * the close to the next dial, so the harness's own closing is not counted) sum to less than
 * TIGHT_WINDOW_MS. With full jitter the waits are independent and uniform on [0, c_k), so the
 * chance that the first 8 sum to less than 2 s is at most the simplex's volume over the box's,
 * 2000^8 / (8! · 250 · 500 · 1000 · 2000 · 4000 · 8000 · 10000 · 10000) ≈ 7.9 · 10^-6, one run in
 * 126,000. A loaded machine only lengthens a conforming mod's redials, so it cannot make one look
 * like a loop; and a mod that redials at once still fits 8 redials into 2 s while each of them
 * takes up to 250 ms to close and connect, so a slow machine no longer hides one (the old judge
 * summed five delays against 200 ms, 40 ms a redial, which a busy machine's connects exceeded).
 */
const TIGHT_REDIALS = 8;
const TIGHT_WINDOW_MS = 2_000;

function closeText(close: LinkClose): string {
  return `${close.code}${close.reason ? ` ${close.reason}` : ''}`;
}

/**
 * Waits `within` ms (the run's `rejectWithinMs`) for the mod to close `link` with one of
 * `codes`; fails naming what happened instead.
 */
async function expectClose(
  within: number,
  link: HarnessLink,
  codes: ReadonlyArray<ProtocolErrorCode | 1009>,
  what: string,
): Promise<string> {
  const want: number[] = codes.map((code) => (code === 1009 ? 1009 : PROTOCOL_ERRORS[code].closeCode));
  const names = codes
    .map((code) => (code === 1009 ? '1009' : `${PROTOCOL_ERRORS[code].closeCode} ${code}`))
    .join(' or ');
  const close = await link.waitClose(within);
  if (close === null) {
    link.close('shutdown');
    return fail(`the mod accepted ${what}: the link stayed open for ${within} ms (expected close ${names})`);
  }
  if (close.violation)
    fail(
      `after ${what} the mod sent ${close.violation.code} (${close.violation.message}) instead of closing with ${names}`,
    );
  if (!want.includes(close.code))
    fail(`the mod closed with ${closeText(close)} after ${what}; expected ${names}`);
  return `closed ${closeText(close)}`;
}

// Raw msgpack pieces for frames no encoder of ours would write (PROTOCOL §2).
const T_PING = Buffer.from([0xa1, 0x74, 0xa4, 0x70, 0x69, 0x6e, 0x67]); // "t": "ping"
const N_1 = Buffer.from([0xa1, 0x6e, 0x01]); // "n": 1
const KEY_X = Buffer.from([0xa1, 0x78]); // "x"

/** `[{t: 'ping', n: 1, x: <value>}]` with `value` as raw msgpack bytes. */
function pingWith(value: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from([0x91, 0x83]), T_PING, N_1, KEY_X, value]);
}

function str32(length: number): Uint8Array {
  const header = Buffer.alloc(5);
  header[0] = 0xdb;
  header.writeUInt32BE(length, 1);
  return Buffer.concat([header, Buffer.alloc(length, 0x61)]);
}

function bin32(length: number): Uint8Array {
  const header = Buffer.alloc(5);
  header[0] = 0xc6;
  header.writeUInt32BE(length, 1);
  return Buffer.concat([header, Buffer.alloc(length)]);
}

/** A frame case: what the harness sends on an open session, and the close codes it must cause. */
interface FrameRejection {
  id: string;
  section: string;
  what: string;
  codes: ReadonlyArray<ProtocolErrorCode | 1009>;
  send: (link: HarnessLink) => Promise<void> | void;
}

const FRAME_REJECTIONS: FrameRejection[] = [
  {
    id: 'frame.forged-tag',
    section: '§4.6',
    what: 'a frame whose AEAD tag was altered',
    codes: ['bad_mac'],
    send: (link) => {
      const frame = Buffer.from(link.seal(encode([{ t: 'ping', n: 1 }])));
      frame[frame.length - 1] = (frame[frame.length - 1] as number) ^ 0x01;
      link.sendRaw(frame);
    },
  },
  {
    id: 'frame.replayed-seq',
    section: '§4.3',
    what: 'a frame sent a second time (its seq repeated)',
    codes: ['sequence'],
    send: async (link) => {
      const frame = link.seal(encode([{ t: 'ping', n: 424242 }]));
      link.sendRaw(frame);
      link.sendRaw(frame);
    },
  },
  {
    id: 'frame.reordered-seq',
    section: '§4.3',
    what: 'seq n + 1 sent before seq n',
    codes: ['sequence'],
    send: (link) => {
      const first = link.takeSeq();
      const second = link.takeSeq();
      link.sendRaw(link.seal(encode([{ t: 'ping', n: 2 }]), second));
      link.sendRaw(link.seal(encode([{ t: 'ping', n: 1 }]), first));
    },
  },
  {
    id: 'frame.skipped-seq',
    section: '§4.3',
    what: 'seq n + 2 after seq n (seq n + 1 skipped)',
    codes: ['sequence'],
    send: (link) => {
      link.takeSeq();
      link.send({ t: 'ping', n: 3 });
    },
  },
  {
    id: 'frame.reflected',
    section: '§4.6',
    what: "a frame sealed with the mod's own key (mod→daemon), as a frame of its own echoed back",
    codes: ['bad_mac'],
    send: (link) => link.sendRaw(link.sealReflected(encode([{ t: 'ping', n: 5 }]))),
  },
  {
    id: 'frame.oversize',
    section: '§2.2',
    what: 'a WebSocket message over 1 MiB',
    codes: [1009, 'frame_too_large'],
    send: (link) => void link.sendPlaintext(pingWith(bin32(1024 * 1024))),
  },
  {
    id: 'frame.string-too-long',
    section: '§2.2',
    what: 'a str of 256 KiB + 1 byte',
    codes: ['string_too_long'],
    send: (link) => void link.sendPlaintext(pingWith(str32(256 * 1024 + 1))),
  },
  {
    id: 'frame.ext-type',
    section: '§2.1',
    what: 'an ext type (fixext 1) inside a body',
    codes: ['unsupported_type'],
    send: (link) => void link.sendPlaintext(pingWith(Buffer.from([0xd4, 0x01, 0x00]))),
  },
  {
    id: 'frame.duplicate-key',
    section: '§2.4',
    what: 'a map holding the key n twice',
    codes: ['duplicate_key'],
    send: (link) =>
      void link.sendPlaintext(
        Buffer.concat([Buffer.from([0x91, 0x83]), T_PING, N_1, Buffer.from([0xa1, 0x6e, 0x02])]),
      ),
  },
  {
    id: 'frame.invalid-utf8',
    section: '§2.6',
    what: 'a str holding an encoded surrogate (ED A0 80)',
    codes: ['invalid_utf8'],
    send: (link) => void link.sendPlaintext(pingWith(Buffer.from([0xa3, 0xed, 0xa0, 0x80]))),
  },
  {
    id: 'frame.float-integer',
    section: '§2.1',
    what: 'a ping whose n is the float64 1.0',
    codes: ['invalid_message'],
    send: (link) =>
      void link.sendPlaintext(
        Buffer.concat([
          Buffer.from([0x91, 0x82]),
          T_PING,
          Buffer.from([0xa1, 0x6e, 0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]),
        ]),
      ),
  },
  {
    id: 'frame.bare-body',
    section: '§4.2',
    what: 'a plaintext that is a bare body, not an array of bodies',
    codes: ['invalid_batch'],
    send: (link) => void link.sendPlaintext(encode({ t: 'ping', n: 1 })),
  },
  {
    id: 'frame.wrong-sender',
    section: '§4.4',
    what: 'a res body, which only a mod may send',
    codes: ['unexpected_frame'],
    send: (link) => link.send({ t: 'res', id: 1, ok: true, result: null }),
  },
  {
    id: 'frame.second-ready',
    section: '§4.5',
    what: 'a second ready',
    codes: ['unexpected_frame'],
    send: (link) => link.send({ t: 'ready' }),
  },
];

function frameCase(rejection: FrameRejection): ModCase {
  return {
    id: rejection.id,
    op: null,
    section: rejection.section,
    run: async (ctx) => {
      const link = await ctx.link();
      await rejection.send(link);
      return expectClose(ctx.rejectWithinMs, link, rejection.codes, rejection.what);
    },
  };
}

async function helloAndAuth(ctx: CaseContext): Promise<string> {
  const { link } = await ctx.nextConnection();
  const { hello } = await ctx.open(link);
  check(
    hello.versions.includes(1),
    `hello.versions ${JSON.stringify(hello.versions)} does not offer version 1 (§3.2)`,
  );
  check(
    Buffer.byteLength(hello.mod_version) <= MAX_MOD_VERSION_BYTES,
    `hello.mod_version is over ${MAX_MOD_VERSION_BYTES} bytes`,
  );
  return `versions [${hello.versions.join(', ')}], mod_version ${hello.mod_version}`;
}

async function sessionOpens(ctx: CaseContext): Promise<string> {
  const link = await ctx.link();
  check(await link.ping(REJECT_WITHIN_MS), 'the mod did not answer a ping after ready (§4.5, §5.1)');
  return 'the mod speaks after ready';
}

async function refusedWelcome(
  ctx: CaseContext,
  tweak: Parameters<CaseContext['welcome']>[1],
  codes: ProtocolErrorCode[],
  what: string,
): Promise<string> {
  const { link } = await ctx.nextConnection();
  await ctx.welcome(link, tweak);
  return expectClose(ctx.rejectWithinMs, link, codes, what);
}

async function requestBeforeReady(ctx: CaseContext): Promise<string> {
  const { link } = await ctx.nextConnection();
  const { finish } = await link.welcome(ctx.identity, ctx.trustedModKeys, ctx.reconnectMs);
  await finish(ctx.reconnectMs, false, [
    { t: 'req', id: 1, op: 'server.status', args: {}, deadline_ms: 1000 },
  ]);
  return expectClose(ctx.rejectWithinMs, link, ['unexpected_frame'], 'a req before ready');
}

async function handshakeDeadline(ctx: CaseContext): Promise<string> {
  const { link } = await ctx.nextConnection();
  await ctx.welcome(link, {});
  const started = Date.now();
  const close = await link.waitClose(HANDSHAKE_DEADLINE_MS * 2);
  if (close === null) {
    link.close('handshake_timeout');
    fail(
      `the mod kept a handshake without ready open for ${HANDSHAKE_DEADLINE_MS * 2} ms; past its deadline (5 s by default) it closes with 4033 handshake_timeout (§3.7)`,
    );
  }
  check(
    close.code === PROTOCOL_ERRORS.handshake_timeout.closeCode,
    `the mod closed a handshake without ready with ${closeText(close)}; expected 4033 handshake_timeout (§3.7)`,
  );
  return `closed 4033 after ${Date.now() - started} ms`;
}

async function pongs(ctx: CaseContext): Promise<string> {
  const link = await ctx.link();
  for (const n of [7, 0xffff_ffff, 0]) {
    check(
      await link.ping(REJECT_WITHIN_MS, n),
      `the mod did not answer {t: 'ping', n: ${n}} with a pong of the same n (§5.1)`,
    );
  }
  return 'answered n 7, 4294967295 and 0';
}

/**
 * The case before this one ended its connection by the mod's own close (a refusal), so a session
 * is opened first: the harness then closes it with `shutdown` and times the redial from there.
 */
async function redial(ctx: CaseContext): Promise<string> {
  await ctx.link();
  const { link, afterMs } = await ctx.nextConnection('shutdown');
  await ctx.open(link);
  return `redialled ${afterMs} ms after the daemon closed the session with 4000 shutdown`;
}

/**
 * Closes `link` (unasked, as a daemon restart would) and times the mod's next dial, waiting at most
 * `withinMs`; null when none came.
 */
async function timeRedial(ctx: CaseContext, link: HarnessLink, withinMs: number): Promise<number | null> {
  link.close('shutdown');
  await link.waitClose(REJECT_WITHIN_MS);
  return ctx.peekRedial(withinMs);
}

/**
 * Closes the session, then each connection before its handshake, so k grows (§5.4): each of the
 * first five redials must come under its ceiling, and the mod must not make TIGHT_REDIALS redials
 * with less than TIGHT_WINDOW_MS of waiting in all. The redials are counted until that much waiting,
 * then the next connection becomes the session again, which resets k for the cases after this one.
 */
async function backoff(ctx: CaseContext): Promise<string> {
  let link = await ctx.link();
  const delays: number[] = [];
  // The window counts only the waits the mod chose: from each close to its next dial.
  const waited = () => delays.reduce((sum, delay) => sum + delay, 0);
  for (let attempt = 0; ; attempt++) {
    const ceiling = backoffCeiling(attempt, DEFAULT_BACKOFF);
    const left = TIGHT_WINDOW_MS - waited();
    // Past the first five, a redial only matters while the window lasts.
    const withinMs = attempt < BACKOFF_ATTEMPTS ? ceiling + BACKOFF_SLACK_MS : Math.max(0, left);
    const afterMs = await timeRedial(ctx, link, withinMs);
    if (afterMs === null && attempt >= BACKOFF_ATTEMPTS) {
      await ctx.link(); // the redial still to come opens the session
      return backoffNote(delays);
    }
    if (afterMs === null) {
      fail(
        `the mod did not redial within ${withinMs} ms of close number ${attempt + 1} without ready; attempt k = ${attempt} waits less than min(10 s, 250 ms · 2^k) = ${ceiling} ms (§5.4; the harness allows ${BACKOFF_SLACK_MS} ms for scheduling)`,
      );
    }
    delays.push(afterMs);
    const elapsed = waited();
    if (delays.length >= TIGHT_REDIALS && elapsed < TIGHT_WINDOW_MS) {
      fail(
        `the mod redials in a tight loop: ${delays.length} redials after closes it did not ask for, ${elapsed} ms of waiting in all (after ${delays.join(', ')} ms); attempt k waits a uniformly random time in [0, min(10 s, 250 ms · 2^k)) (§5.4), so a game server does not hammer a daemon that is down`,
      );
    }
    ({ link } = await ctx.nextConnection());
    if (attempt + 1 >= BACKOFF_ATTEMPTS && elapsed >= TIGHT_WINDOW_MS) {
      await ctx.open(link);
      return backoffNote(delays);
    }
  }
}

function backoffNote(delays: readonly number[]): string {
  const ceilings = delays.map((_d, k) => backoffCeiling(k, DEFAULT_BACKOFF));
  return `${delays.length} redials, ${TIGHT_WINDOW_MS} ms of waiting or more, after ${delays.join(', ')} ms (ceilings ${ceilings.join(', ')} ms)`;
}

async function superseded(ctx: CaseContext): Promise<string> {
  const link = await ctx.link();
  link.close('superseded');
  await link.waitClose(REJECT_WITHIN_MS);
  const next = await ctx.peekRedial(SUPERSEDED_QUIET_MS);
  if (next !== null) {
    fail(
      `the mod redialled ${next} ms after a superseded close (4001); it must wait the full maximum backoff (10 s by default) so two mods with one identity do not supersede each other in a loop (§5.4); or another process with this mod's identity is running`,
    );
  }
  return `no redial within ${SUPERSEDED_QUIET_MS} ms of superseded`;
}

/** The cases that open the run: the handshake must work before anything else can. */
export function openingCases(): ModCase[] {
  return [
    { id: 'handshake.hello-auth', op: null, section: '§3.2', run: helloAndAuth },
    { id: 'session.ready', op: null, section: '§4.5', run: sessionOpens },
    { id: 'heartbeat.pong', op: null, section: '§5.1', run: pongs },
  ];
}

/**
 * Handshake refusals and frame rejections, each ending its connection. A refusal between two
 * frame cases: a mod's backoff grows with each handshake that fails and starts again with each
 * session that opens (§5.4), so the run does not wait out a growing backoff.
 */
export function rejectionCases(): ModCase[] {
  const frames = FRAME_REJECTIONS.map(frameCase);
  const refusals = handshakeRefusals();
  return [
    ...refusals.flatMap((refusal, i) => [refusal, ...frames.slice(i, i + 1)]),
    ...frames.slice(refusals.length),
    { id: 'handshake.deadline', op: null, section: '§3.7', run: handshakeDeadline },
  ];
}

function handshakeRefusals(): ModCase[] {
  return [
    {
      id: 'handshake.wrong-daemon-key',
      op: null,
      section: '§3.3',
      run: (ctx) =>
        refusedWelcome(
          ctx,
          { signWith: generateIdentity() },
          ['unknown_identity'],
          'a welcome from a key it does not pin',
        ),
    },
    {
      id: 'handshake.replayed-welcome',
      op: null,
      section: '§3.4',
      run: (ctx) => {
        const replay = ctx.lastWelcome;
        if (replay === null) fail('no earlier welcome to replay: the first handshake did not finish');
        return refusedWelcome(
          ctx,
          { replay },
          ['bad_signature'],
          'a welcome replayed from an earlier connection',
        );
      },
    },
    { id: 'session.ready-first', op: null, section: '§4.5', run: requestBeforeReady },
    {
      id: 'handshake.unoffered-version',
      op: null,
      section: '§3.3',
      run: (ctx) =>
        refusedWelcome(
          ctx,
          { version: 255 },
          ['unsupported_version'],
          'a welcome choosing version 255, which it did not offer',
        ),
    },
    { id: 'link.redial', op: null, section: '§5.4', run: redial },
  ];
}

/**
 * The last cases: redials timed against the backoff, then a superseded close, after which the
 * mod stays away for seconds (§5.4).
 */
export function closingCases(): ModCase[] {
  return [
    { id: 'link.backoff', op: null, section: '§5.4', run: backoff },
    { id: 'link.superseded', op: null, section: '§5.2', run: superseded },
  ];
}
