/**
 * The harness catches deliberately broken mods by name (issue 28, "Proven"): each is the
 * simulator with one thing wrong (a mute not rounded, coins applied twice for one op id, a forged
 * frame accepted, acknowledged events never let go, events sent to a session that did not
 * announce them, a redial at once after every close, a body over 512 KiB, a write actor's optional
 * `source` refused or not recorded), and the case that checks that rule fails
 * with a reason a mod author understands. And it is fair (issue 36): a mod without events skips
 * §9 at once, a mod that goes away is one failure with the rest not run, one wrong field is one
 * failure with the cases built on it not run, a selection of no case is said before any wait, and
 * the protocol code the harness shares with the daemon is checked against the golden vectors
 * first. The harness and the mod run in this process, over a real loopback WebSocket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../mod-sim/simulator.ts';
import { generateIdentity } from '../../protocol/keys.ts';
import type { EventsFrame } from '../../protocol/frames.ts';
import type { OpHandlers } from '../../protocol/ops/index.ts';
import { OpError } from '../../protocol/ops/define.ts';
import { LinkConnection } from '../../protocol/link-connection.ts';
import { failureBlock } from '../../mod-test/report.ts';
import { GOLDEN_VECTORS } from '../../mod-test/self-check.ts';
import { Session } from '../../protocol/session.ts';
import { NoCasesError, runModTest, type ModTestOptions, type ModTestReport } from '../../mod-test/index.ts';
import { aeadKey, openFrame } from '../../protocol/aead.ts';
import { ModHandshake, type Established } from '../../protocol/handshake.ts';
import { LinkConnection as Connection } from '../../protocol/link-connection.ts';
import { AppliedOps } from '../../mod-sim/world/applied-ops.ts';
import type { FrameBody } from '../../protocol/frames.ts';

type Patch = Partial<Omit<SimulatorOptions, 'url' | 'identity' | 'daemonPublicKey'>>;

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/**
 * For a mod that accepts a frame it must reject: its case is judged once the wait for the close
 * is over, and the sound mod of the same run closes at once, so the wait need not be the 10 s a
 * real game server is given (which the runs against the simulator as it is keep).
 */
const ACCEPTS_BAD_FRAMES: Partial<ModTestOptions> = { rejectWithinMs: 1_000 };

/** Runs the cases `only` against the simulator changed by `patch` (and `afterStart`). */
async function runAgainst(
  only: string[],
  patch: Patch = {},
  afterStart?: (sim: Simulator) => void,
  trusted?: Uint8Array,
  extra: Partial<ModTestOptions> = {},
): Promise<ModTestReport> {
  const daemon = generateIdentity();
  const mod = generateIdentity();
  return runModTest({
    identity: daemon,
    trustedModKeys: [trusted ?? mod.publicKey],
    host: '127.0.0.1',
    port: 0,
    waitMs: 10_000,
    opDeadlineMs: 2_000,
    only,
    onListening: ({ port }) => {
      sim = startSimulator({
        url: `ws://127.0.0.1:${port}`,
        identity: mod,
        daemonPublicKey: daemon.publicKey,
        dmQueueIntervalMs: 0,
        activityIntervalMs: 0,
        ...patch,
      });
      afterStart?.(sim);
    },
    ...extra,
  });
}

function outcome(report: ModTestReport, id: string) {
  const result = report.cases.find((c) => c.id === id);
  if (!result) throw new Error(`no case ${id} in the report`);
  return result;
}

/** Runs the two source cases against the mod changed by `patch`: `failing` fails, its reason is returned. */
async function sourceFailure(patch: Patch, failing: string, passing: string): Promise<string> {
  const report = await runAgainst(['source.*'], patch);
  expect(outcome(report, passing).status).toBe('pass');
  const result = outcome(report, failing);
  expect(result.status).toBe('fail');
  return result.message;
}

describe('modgate mod test against broken mods', () => {
  it('catches a mod that does not round a temporary mute up to the next hour', async () => {
    const report = await runAgainst(['game.mute-rounding'], {
      patchHandlers: (handlers: Partial<OpHandlers>) => ({
        ...handlers,
        'players.mute': async (args, ctx) => {
          const result = await handlers['players.mute']!(args, ctx);
          const minutes = args.permanent ? null : args.duration;
          return { ...result, mute: { ...result.mute, duration_minutes: minutes } };
        },
      }),
    });
    const mute = outcome(report, 'game.mute-rounding');
    expect(mute.status).toBe('fail');
    expect(mute.message).toContain('a mute of 90 minutes answered duration_minutes 90');
    expect(mute.message).toContain('rounds a temporary mute up to the next whole hour (120)');
  });

  it('catches a mod that applies a repeated op id twice', async () => {
    const report = await runAgainst(['game.coins-idempotent'], {
      patchHandlers: (handlers: Partial<OpHandlers>) => ({
        ...handlers,
        // Forgets the op id, so its memory of applied ops never sees one.
        'economy.coins': (args, ctx) =>
          handlers['economy.coins']!(args, Object.create(ctx, { opId: { value: undefined } })),
      }),
    });
    const coins = outcome(report, 'game.coins-idempotent');
    expect(coins.status).toBe('fail');
    expect(coins.op).toBe('economy.coins');
    expect(coins.message).toMatch(
      /sent twice with op id \S+ moved the balance from (\d+) to \d+; a repeated op id must apply once \(§6\.4\)/,
    );
  });

  it('catches a mod that refuses a write whose actor carries the optional source', async () => {
    // A mod whose actor schema is strict, written before the field: an unknown key is invalid.
    const patch: Patch = {
      patchHandlers: (handlers: Partial<OpHandlers>) => ({
        ...handlers,
        'players.ban': (args, ctx) => {
          if ('source' in args.actor)
            throw new OpError('invalid', 'Invalid arguments', {
              issues: [{ path: 'actor', message: 'Unrecognized key: "source"' }],
            });
          return handlers['players.ban']!(args, ctx);
        },
      }),
    };
    const message = await sourceFailure(patch, 'source.violation', 'source.ledger');
    expect(message).toContain(
      'players.ban with actor.source "panel" was refused: players.ban answered the error invalid (Invalid arguments)',
    );
    expect(message).toContain('a mod that does not know a field ignores it (§2.1)');
  });

  it('catches a mod that records every write as api whatever its source', async () => {
    const patch: Patch = {
      patchHandlers: (handlers: Partial<OpHandlers>) => ({
        ...handlers,
        // Drops the source before the game sees it, as a mod that never reads it would.
        'economy.coins': ({ actor: { source: _source, ...actor }, ...args }, ctx) =>
          handlers['economy.coins']!({ ...args, actor }, ctx),
      }),
    };
    const message = await sourceFailure(patch, 'source.ledger', 'source.violation');
    expect(message).toContain(
      'a coin change sent with actor.source "panel" is recorded in economy.transactions with source "api"',
    );
    expect(message).toContain('(§6.6 "Where a write comes from"), so panel');
  });

  it('catches a mod that accepts a frame whose tag was forged', async () => {
    const open = Object.getOwnPropertyDescriptor(Session.prototype, 'open')!;
    const fail = Object.getOwnPropertyDescriptor(Session.prototype, 'fail')!;
    // The mod's sessions skip a frame whose tag does not verify instead of closing the link.
    Session.prototype.fail = function (this: Session, error) {
      if (this.role === 'mod' && error.code === 'bad_mac') return { ok: false, error };
      return (fail.value as Session['fail']).call(this, error);
    };
    Session.prototype.open = function (this: Session, bytes) {
      const opened = (open.value as Session['open']).call(this, bytes);
      if (this.role === 'mod' && !opened.ok && opened.error.code === 'bad_mac')
        return { ok: true, value: [] };
      return opened;
    };
    try {
      const report = await runAgainst(['frame.forged-tag'], {}, undefined, undefined, ACCEPTS_BAD_FRAMES);
      const forged = outcome(report, 'frame.forged-tag');
      expect(forged.status).toBe('fail');
      expect(forged.message).toContain('the mod accepted a frame whose AEAD tag was altered');
      expect(forged.message).toContain('expected close 4040 bad_mac');
    } finally {
      Object.defineProperty(Session.prototype, 'open', open);
      Object.defineProperty(Session.prototype, 'fail', fail);
    }
  });

  it('catches a mod that never lets an acknowledged event go', async () => {
    const report = await runAgainst(['events.ack-forgets'], {}, (broken) => {
      broken.bridge.events.ack = () => {}; // every events_ack is ignored: the buffer keeps all
    });
    const acks = outcome(report, 'events.ack-forgets');
    expect(acks.status).toBe('fail');
    expect(acks.message).toMatch(
      /after a redial the mod sent again \d+ event\(s\) an events_ack had covered/,
    );
  });

  it('catches a mod that sends events to a session that did not announce them', async () => {
    const ready = Object.getOwnPropertyDescriptor(LinkConnection.prototype, 'ready')!;
    // The bridge reads every ready as events: true, so it sends events whatever the daemon said.
    Object.defineProperty(LinkConnection.prototype, 'ready', { get: () => ({ t: 'ready', events: true }) });
    try {
      const report = await runAgainst(['events.not-announced']);
      const announced = outcome(report, 'events.not-announced');
      expect(announced.status).toBe('fail');
      expect(announced.message).toContain('which a daemon rejects with 4021 unexpected_frame');
    } finally {
      Object.defineProperty(LinkConnection.prototype, 'ready', ready);
    }
  });

  it('catches a mod that redials at once after each close instead of backing off', async () => {
    const report = await runAgainst(['link.backoff'], { backoff: { initialMs: 1, maxMs: 1 } });
    const backoff = outcome(report, 'link.backoff');
    expect(backoff.status).toBe('fail');
    expect(backoff.message).toMatch(
      /the mod redials in a tight loop: 8 redials after closes it did not ask for, \d+ ms of waiting in all/,
    );
    expect(backoff.message).toContain('(§5.4)');
  });

  it('catches a mod that sends an events body over 512 KiB of events', async () => {
    const report = await runAgainst(['events.body-limits'], {}, (broken) => {
      const events = broken.bridge.events;
      const attach = events.attach.bind(events);
      // The bodies one turn sends leave as one: ten events of 60 KiB make one body of 600 KiB.
      events.attach = (send) => {
        let held: EventsFrame | null = null;
        attach((body) => {
          if (held) return void held.events.push(...body.events);
          held = { ...body, events: [...body.events] };
          setImmediate(() => {
            send(held!);
            held = null;
          });
        });
      };
      for (let i = 0; i < 10; i++) events.emit('player.banned', { padding: 'x'.repeat(60_000) });
    });
    const limits = outcome(report, 'events.body-limits');
    expect(limits.status).toBe('fail');
    expect(limits.message).toMatch(/an events body of \d+ events holds \d+ bytes of events' msgpack, over/);
    expect(limits.message).toContain('batch_too_large');
    expect(limits.message).toContain('(§9.5 rule 2)');
  });

  it('skips the events cases at once, naming why, for a mod that sends no events', async () => {
    const ready = Object.getOwnPropertyDescriptor(LinkConnection.prototype, 'ready')!;
    // The bridge reads every ready as one without events, so it never sends any (§9.1).
    Object.defineProperty(LinkConnection.prototype, 'ready', { get: () => ({ t: 'ready' }) });
    try {
      const report = await runAgainst(['events.*']);
      expect(report.summary.fail).toBe(0);
      const shape = outcome(report, 'events.shape');
      expect(shape.status).toBe('skip');
      expect(shape.message).toContain('the mod sent no events body within 5000 ms of a ban and its lifting');
      expect(shape.message).toContain('events are optional (§9.1');
      const after = report.cases.filter((c) => c.needs.includes('events.shape'));
      expect(after.map((c) => c.id)).toEqual([
        'events.resend',
        'events.ack-forgets',
        'events.refused',
        'events.ack-for-nothing',
        'events.body-limits',
      ]);
      for (const c of after) {
        expect(c).toMatchObject({ status: 'skip', ms: 0 });
        expect(c.message).toMatch(/^needs events\.shape, which was skipped: the mod sent no events body/);
      }
      // The cases that judge every event of the run are not waited for a second time either.
      for (const id of ['events.stream-seqs', 'events.every-event']) {
        expect(outcome(report, id).status).toBe('skip');
        expect(outcome(report, id).message).toMatch(
          /^the mod sent no events body in the \d+ ms since players\.unban lifted a ban/,
        );
      }
    } finally {
      Object.defineProperty(LinkConnection.prototype, 'ready', ready);
    }
  });

  it('ends the run with one failure when the mod goes away, the cases left not run', async () => {
    const report = await runAgainst(['op.server.status', 'op.players.*'], {}, undefined, undefined, {
      onResult: (result) => {
        if (result.id === 'op.players.list') void sim?.close(); // the game server stops for good
      },
      // The mod never comes back, so how long the harness waits for it changes nothing here but
      // the time (15 s by default).
      reconnectMs: 1_000,
    });
    const failed = report.cases.filter((c) => c.status === 'fail');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.message).toMatch(
      /^the mod went away (after case op\.players\.list|during this case) and did not come back within 1000 ms/,
    );
    const index = report.cases.indexOf(failed[0]!);
    const rest = report.cases.slice(index + 1);
    expect(rest.length).toBeGreaterThan(10);
    // Not run is not waited for: each case after it took no time instead of a wait of its own.
    for (const c of rest) {
      expect(c).toMatchObject({ status: 'not_run', ms: 0 });
      expect(c.message).toBe(`not run, because the mod went away (${failed[0]?.id} failed)`);
    }
    expect(report.summary.not_run).toBe(rest.length);
  });

  it('reports one wrong field type once, the cases built on it not run', async () => {
    const report = await runAgainst(['op.players.*', 'game.mute-rounding', 'game.ban-caps', 'source.*'], {
      patchHandlers: (handlers: Partial<OpHandlers>) => ({
        ...handlers,
        'players.list': async (args, ctx) => {
          const page = await handlers['players.list']!(args, ctx);
          return {
            ...page,
            data: page.data.map((row) => ({ ...row, money: String(row.money) }) as unknown as typeof row),
          };
        },
      }),
    });
    const failed = report.cases.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.id)).toEqual(['op.players.list']);
    expect(failed[0]?.message).toContain('data.0.money');
    const notRun = report.cases.filter((c) => c.status === 'not_run');
    expect(notRun.map((c) => c.id)).toEqual(
      expect.arrayContaining(['op.players.get', 'op.players.ban', 'game.mute-rounding', 'source.ledger']),
    );
    for (const c of notRun) expect(c.message).toBe('not run, because op.players.list failed');
    expect(failureBlock(report.cases)).toContain(
      `    not run because of it: ${notRun.map((c) => c.id).join(', ')}`,
    );
  });

  it('says at once that --only matched no case, before any mod dials', async () => {
    // At once, and no wall clock needed to see it: a run that waited for a mod would end in
    // "no mod dialled" after waitMs, not in NoCasesError.
    await expect(runAgainst(['no.such.case'])).rejects.toThrow(NoCasesError);
    await expect(runAgainst(['no.such.case'])).rejects.toThrow(
      "--only 'no.such.case' matches no case, so there is nothing to run: `modgate mod test --list` lists the case ids",
    );
    expect(sim).toBeUndefined(); // it never listened, so no mod was started
  });

  it('says which mute checks did not run for a mod without players.unmute', async () => {
    const report = await runAgainst(['game.mute-rounding'], {
      patchHandlers: ({ 'players.unmute': _unmute, ...handlers }: Partial<OpHandlers>) => handlers,
    });
    expect(outcome(report, 'game.mute-rounding')).toMatchObject({
      status: 'pass',
      section: '§6.6',
      message:
        '90 → 120 minutes; not run: 1 → 60, 60 → 60, since the mod does not implement players.unmute, which lifts each mute before the next (the 90-minute mute stays until it ends)',
    });
  });

  it('gives the close code of a mod that closes on an events_ack for nothing', async () => {
    const report = await runAgainst(['events.ack-for-nothing'], {}, (broken) => {
      // The bridge treats an ack for a stream it does not hold as a fault and closes.
      broken.bridge.events.ack = () => {
        throw new Error('unknown stream');
      };
    });
    const ack = outcome(report, 'events.ack-for-nothing');
    expect(ack.status).toBe('fail');
    expect(ack.message).toMatch(
      /after an events_ack for a stream it never sent the mod closed the link with 40\d\d/,
    );
  });

  it('checks its shared protocol code against the golden vectors before every run, and stops when one disagrees', async () => {
    let checked = 0;
    const report = await runAgainst(['session.ready'], {}, undefined, undefined, {
      onSelfCheck: (vectors) => (checked = vectors),
    });
    expect(outcome(report, 'session.ready').status).toBe('pass');
    expect(checked).toBe(119);
    // A vector the shared codec answers otherwise, as a bug in it would make daemon and harness do.
    const broken = structuredClone(GOLDEN_VECTORS);
    const vector = broken.rejections.codec.find((v) => v.code === 'malformed')!;
    broken.rejections.codec.push({ ...vector, name: 'a planted disagreement', code: 'duplicate_key' });
    await expect(
      runAgainst(['session.ready'], {}, undefined, undefined, { goldenVectors: broken }),
    ).rejects.toThrow(
      `disagrees with 1 golden vector(s) of PROTOCOL §8 (protocol/vectors/golden.json), so it cannot judge a mod: codec a planted disagreement: malformed, not duplicate_key`,
    );
  });

  it('names a mod whose key the data dir does not trust, and closes it with 4031', async () => {
    const report = await runAgainst(['handshake.hello-auth'], {}, undefined, generateIdentity().publicKey);
    const hello = outcome(report, 'handshake.hello-auth');
    expect(hello.status).toBe('fail');
    expect(hello.message).toContain("whose id is not among the data dir's mod keys (mod-keys.json)");
  });

  it('skips, naming the op, what a mod without an op cannot answer, and what needs that op', async () => {
    const report = await runAgainst(['vehicles.*'], {
      patchHandlers: ({ 'vehicles.list': _list, ...handlers }: Partial<OpHandlers>) => handlers,
    });
    const statuses = new Set(report.cases.map((c) => c.status));
    expect(statuses).toEqual(new Set(['pass', 'skip']));
    expect(report.cases.find((c) => c.id === 'op.vehicles.list')?.message).toBe(
      'the mod does not implement vehicles.list (it answered unsupported, which §6.1 allows)',
    );
    expect(report.cases.find((c) => c.id === 'op.vehicles.get')).toMatchObject({
      status: 'skip',
      message:
        'needs op.vehicles.list, which was skipped: the mod does not implement vehicles.list (it answered unsupported, which §6.1 allows)',
      needs: ['op.vehicles.list'],
    });
  });

  it('passes the same cases against the simulator as it is', async () => {
    const report = await runAgainst([
      'events.not-announced',
      'game.mute-rounding',
      'game.coins-idempotent',
      'frame.forged-tag',
      'events.ack-forgets',
      'link.backoff',
      'events.body-limits',
      'source.*',
    ]);
    // The 66 events held come back in bodies of at most 64, as the reference bridge keeps them.
    expect(report.cases.find((c) => c.id === 'events.body-limits')?.message).toMatch(
      /66 of 66 held events resent in 2 bodies; .* the largest held 64 events and \d+ bytes/,
    );
    expect(report.cases.map((c) => [c.id, c.status])).toEqual([
      ['game.mute-rounding', 'pass'],
      ['game.coins-idempotent', 'pass'],
      ['source.violation', 'pass'],
      ['source.ledger', 'pass'],
      ['events.not-announced', 'pass'],
      ['events.ack-forgets', 'pass'],
      ['events.body-limits', 'pass'],
      ['frame.forged-tag', 'pass'],
      ['link.backoff', 'pass'],
    ]);
  });
});

/** Runs `run` with `proto[name]` replaced by what `make` builds from the original, then restores it. */
async function patched<P extends object, K extends keyof P, T>(
  proto: P,
  name: K,
  make: (original: P[K]) => P[K],
  run: () => Promise<T>,
): Promise<T> {
  const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
  proto[name] = make(descriptor.value as P[K]);
  try {
    return await run();
  } finally {
    Object.defineProperty(proto, name, descriptor);
  }
}

/** Runs `run` while the mod's sessions open frames through `open` (the original as `original`). */
function withModOpen<T>(
  open: (session: Session, bytes: Uint8Array, original: Session['open']) => ReturnType<Session['open']>,
  run: () => Promise<T>,
): Promise<T> {
  return patched(
    Session.prototype,
    'open',
    (original) =>
      function (this: Session, bytes: Uint8Array) {
        return this.role === 'mod' ? open(this, bytes, original.bind(this)) : original.call(this, bytes);
      },
    run,
  );
}

/** Fails unless case `id` failed with a message holding every one of `parts`. */
function expectFailure(report: ModTestReport, id: string, ...parts: string[]): void {
  const result = outcome(report, id);
  expect(result.status).toBe('fail');
  for (const part of parts) expect(result.message).toContain(part);
}

type Wrapped = (
  handler: (args: never, ctx: never) => Promise<unknown>,
) => (args: never, ctx: never) => Promise<unknown>;

/** The simulator with one op's handler wrapped by `wrap`. */
function wrapOp(op: keyof OpHandlers, wrap: Wrapped): Patch {
  return {
    patchHandlers: (handlers: Partial<OpHandlers>) => ({
      ...handlers,
      [op]: wrap(handlers[op] as never),
    }),
  };
}

describe('modgate mod test against broken mods, the faults it once let through (issue 36)', () => {
  it('catches a mod that takes seq n + 2 after seq n instead of closing', async () => {
    // The mod lets a frame that skips ahead pass, unread, where §4.3 closes the link.
    const report = await withModOpen(
      (session, bytes, original) =>
        Buffer.from(bytes).readBigUInt64BE(0) > BigInt(session.expectedSeq)
          ? { ok: true, value: [] }
          : original(bytes),
      () => runAgainst(['frame.skipped-seq'], {}, undefined, undefined, ACCEPTS_BAD_FRAMES),
    );
    expectFailure(
      report,
      'frame.skipped-seq',
      'the mod accepted seq n + 2 after seq n',
      'expected close 4041 sequence',
    );
  });

  it('catches a mod that accepts a frame sealed with its own key, reflected back to it', async () => {
    let keys: Established | undefined;
    // The mod also opens frames with its send key: a frame of its own, echoed, passes.
    const report = await patched(
      ModHandshake.prototype,
      'receive',
      (receive) =>
        function (this: ModHandshake, bytes: Uint8Array) {
          const step = receive.call(this, bytes);
          keys = step.established ?? keys;
          return step;
        },
      () =>
        withModOpen(
          (_session, bytes, original) =>
            keys && openFrame(aeadKey(keys.sendKey), bytes, 1 << 20).ok
              ? { ok: true, value: [] }
              : original(bytes),
          () =>
            runAgainst(['frame.forged-tag', 'frame.reflected'], {}, undefined, undefined, ACCEPTS_BAD_FRAMES),
        ),
    );
    expect(outcome(report, 'frame.forged-tag').status).toBe('pass');
    expectFailure(
      report,
      'frame.reflected',
      "the mod accepted a frame sealed with the mod's own key",
      'expected close 4040 bad_mac',
    );
  });

  it('catches a mod that refuses a ban exactly at the cap of 87,600 hours', async () => {
    const report = await runAgainst(
      ['game.ban-caps'],
      wrapOp('players.ban', (ban) => async (args: never, ctx: never) => {
        const { duration, duration_unit: unit } = args as { duration: number | null; duration_unit: string };
        if (unit === 'hours' && duration === 87_600) throw new OpError('invalid', 'at most 87599 hours');
        return ban(args, ctx);
      }),
    );
    expectFailure(
      report,
      'game.ban-caps',
      'a ban of 87,600 hours, exactly at the cap, must be accepted (§6.6), but players.ban answered the error invalid (at most 87599 hours)',
    );
  });

  it('catches a mod whose month is 31 days', async () => {
    const report = await runAgainst(
      ['game.ban-caps'],
      wrapOp('players.ban', (ban) => async (args: never, ctx: never) => {
        const result = (await ban(args, ctx)) as { ban: Record<string, unknown> };
        const { duration, duration_unit: unit } = args as { duration: number; duration_unit: string };
        if (unit !== 'months') return result;
        const expires = Date.parse(String(result.ban['banned_at'])) + duration * 31 * 86_400_000;
        return { ...result, ban: { ...result.ban, expires_at: new Date(expires).toISOString() } };
      }),
    );
    expectFailure(
      report,
      'game.ban-caps',
      'a ban of 120 months answered expires_at − banned_at = 5,356,800 minutes; a ban keeps its exact duration, 5,184,000 minutes (a month is 30 days) (§6.6)',
    );
  });

  it('catches a mod that answers one request twice', async () => {
    const report = await patched(
      Connection.prototype,
      'send',
      (send) =>
        function (this: Connection, body: FrameBody) {
          send.call(this, body);
          if (this.role === 'mod' && body.t === 'res') send.call(this, body);
        },
      () => runAgainst(['op.answer-once']),
    );
    expectFailure(
      report,
      'op.answer-once',
      'more than once, first id',
      'it answers each req exactly once',
      '(§6.2)',
    );
  });

  it('catches a mod that forgets the op ids it applied when it redials', async () => {
    const report = await runAgainst(
      ['game.coins-idempotent', 'game.coins-idempotent-redial'],
      {},
      (broken) => {
        broken.bridge.on('connect', () => Object.assign(broken.world, { appliedOps: new AppliedOps() }));
      },
    );
    expect(outcome(report, 'game.coins-idempotent').status).toBe('pass');
    const redial = outcome(report, 'game.coins-idempotent-redial');
    expect(redial.status).toBe('fail');
    expect(redial.message).toMatch(
      /then with the same op id again on a new link after a redial, moved the balance from (\d+) to \d+; a mod remembers the op ids it applied across reconnects and applies each once \(§6\.4\)/,
    );
  });

  it('catches a mod whose page 2 repeats the last row of page 1', async () => {
    // Each page starts with the row its cursor came after: the same rows for the same after.
    const lastBefore = new Map<string, unknown>();
    const report = await runAgainst(
      ['op.players.list', 'op.players.list.pages'],
      wrapOp('players.list', (list) => async (args: never, ctx: never) => {
        const page = (await list(args, ctx)) as { data: unknown[]; next: string | null };
        if (page.next !== null) lastBefore.set(page.next, page.data.at(-1));
        const { after } = args as { after: string | null };
        if (after === null) return page;
        return { ...page, data: [lastBefore.get(after), ...page.data.slice(0, -1)] };
      }),
    );
    // The call case's own paging checks (limit, total, the same rows again) do not see it.
    expect(outcome(report, 'op.players.list').status).toBe('pass');
    expectFailure(
      report,
      'op.players.list.pages',
      'players.list with limit 5: page 2 repeats the row platform_id',
      'of page 1',
      '(§6.1 "Paging")',
    );
  });

  it('catches a mod whose page 2 leaves out its first row', async () => {
    const report = await runAgainst(
      ['op.squads.list.pages'],
      wrapOp('squads.list', (list) => async (args: never, ctx: never) => {
        const page = (await list(args, ctx)) as { data: unknown[] };
        return (args as { after: string | null }).after === null
          ? page
          : { ...page, data: page.data.slice(1) };
      }),
    );
    expectFailure(
      report,
      'op.squads.list.pages',
      'squads.list with limit 5 skips the row id',
      '(row 6 of one page of limit 100)',
    );
  });

  it('catches a mod that numbers the events of each session from seq 1 again on one stream', async () => {
    const report = await runAgainst(['events.stream-seqs'], {}, (broken) => {
      const events = broken.bridge.events;
      const attach = events.attach.bind(events);
      events.attach = (send) => {
        let seq = 0;
        attach((body) =>
          send({ ...body, events: body.events.map((event) => ({ ...event, seq: (seq += 1) })) }),
        );
      };
    });
    expectFailure(report, 'events.stream-seqs', 'for two different events', 'is never reused (§9.2 rule 2)');
  });

  it('catches a mod whose economy.changed events break their schema', async () => {
    const report = await runAgainst(['events.shape', 'events.every-event'], {}, (broken) => {
      const events = broken.bridge.events;
      const emit = events.emit.bind(events);
      events.emit = (type, data, at) =>
        emit(
          type,
          type === 'economy.changed'
            ? { ...data, amount: String(data['amount']), balance_after: undefined }
            : data,
          at,
        );
    });
    // The events cases see only bans; every event of the run is judged, this one too.
    expect(outcome(report, 'events.shape').status).toBe('pass');
    expectFailure(
      report,
      'events.every-event',
      'the economy.changed event of seq',
      'has data that breaks its shape in events.schema.json',
      'amount',
    );
  });

  it('passes the cases of issue 36 against the simulator as it is', async () => {
    const ids = [
      'frame.skipped-seq',
      'frame.reflected',
      'game.ban-caps',
      'game.mute-caps',
      'op.answer-once',
      'game.coins-idempotent-redial',
      'op.*.pages',
      'events.stream-seqs',
      'events.every-event',
    ];
    const report = await runAgainst(ids);
    expect(report.cases.filter((c) => c.status === 'fail')).toEqual([]);
    expect(report.cases.filter((c) => c.status === 'pass').length).toBeGreaterThanOrEqual(ids.length + 8);
  });
});
