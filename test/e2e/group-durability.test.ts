/**
 * Group mode's durability (docs/group.md, "When the database is down", issue 35 "Failure is
 * local"): `modgate serve` processes killed with SIGKILL at the worst moments, each with a
 * simulated game in this process whose world outlives the daemon, against a real PostgreSQL
 * (harness/postgres.ts). Every sanction reaches the other server's game exactly once: one made in
 * game whose event the daemon logged but never captured, one seen as the op's answer before the
 * kill and as the mod's event after it, and a batch the receiving daemon was applying when killed;
 * a joiner's catch-up with several rows in a slow game at once (docs/group.md, "Catching up"),
 * and one whose game goes away mid-window (daemons in this process: no kill takes part);
 * and with the database hung (SIGSTOP), /v1 still answers and the ban is published once it
 * continues.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupSettings } from '../../daemon/group/group.ts';
import { CHANNEL } from '../../daemon/group/schema.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { startServe, stop, type Served } from '../../harness/processes.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { findModeration } from '../../mod-sim/handlers/players-common.ts';
import { banPlayer } from '../../mod-sim/handlers/players-moderation.ts';
import { dialSimulator } from '../../harness/sim-dial.ts';
import type { Simulator, SimulatorOptions } from '../../mod-sim/simulator.ts';
import { OpError } from '../../protocol/ops/index.ts';
import type { World } from '../../mod-sim/world/index.ts';
import { strangerIds } from '../support/strangers.ts';
import { publishElsewhere } from '../support/group-rows.ts';

const postgres = postgresAvailable('test/e2e/group-durability.test.ts');
const LOOSE = { limit: 1_000_000, windowSec: 60 };
const HOUR = 3_600_000;

let cluster: PostgresCluster;
let databases = 0;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  cluster = await startPostgres(postgres.binDir);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await cluster?.cleanup();
});

/** A fresh group: its own database on the file's cluster; returns its URL and database name. */
async function newGroup(): Promise<{ url: string; database: string }> {
  databases += 1;
  const database = `durable_${databases}`;
  return { url: await cluster.createDatabase(database), database };
}

/** One server run as an operator runs it: a data dir, a config file with `[group]`, a key. */
interface ServerFiles {
  data: TestDataDir;
  config: string;
  key: string;
}

async function serverFiles(url: string, name: string): Promise<ServerFiles> {
  const data = await makeDataDir();
  cleanups.push(() => data.remove());
  const config = `${data.dir}-group.toml`;
  await writeFile(config, `[group]\ndatabase_url = "${url}"\nname = "${name}"\n`);
  return { data, config, key: (await data.createKey('--name', 'moderator')).key };
}

interface Running {
  served: Served;
  sim: Simulator;
  call(path: string, init?: RequestInit): Promise<Response>;
}

/** `modgate serve` on the files, and a simulated game dialling it (with `world`: the same game again). */
async function run(
  files: ServerFiles,
  sim: Partial<SimulatorOptions> = {},
  env: NodeJS.ProcessEnv = {},
): Promise<Running> {
  const served = await startServe(files.data.dir, { extra: ['--config', files.config], env });
  cleanups.push(() => stop(served.serve));
  const game = await dialSimulator(files.data.dir, served.modPort, { wallClock: true, ...sim });
  cleanups.push(() => game.close());
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${served.apiPort}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${files.key}`, 'content-type': 'application/json', ...init.headers },
    });
  return { served, sim: game, call };
}

/** kill -9 the daemon; its game's link drops with it, and the simulator is closed. */
async function kill(running: Running): Promise<void> {
  await stop(running.served.serve, 'SIGKILL');
  await running.sim.close();
}

/**
 * A daemon of the group in this process, for the side that is not killed (and for catch-ups no
 * kill takes part in); `sim`: its simulated game's options.
 */
async function inProcess(url: string, name: string, sim: Partial<SimulatorOptions> = {}): Promise<Stack> {
  const group: GroupSettings = {
    databaseUrl: url,
    name,
    share: ['bans', 'mutes'],
    accept: ['bans', 'mutes'],
  };
  const stack = await startStack({
    sim: { wallClock: true, ...sim },
    daemon: { group, pipeline: { keyRateLimit: LOOSE, edgeRateLimit: LOOSE, checkResponses: true } },
  });
  cleanups.push(() => stack.close());
  return stack;
}

/** How many times `world`'s game applied a ban (or an unban) to this player: its history's entries. */
function applications(world: World, platformId: string, action: 'ban' | 'tempban' | 'unban'): number {
  const record = findModeration(world, { platform_id: platformId });
  return [...(record?.violations ?? [])].filter((entry) => entry.action === action).length;
}

function banned(world: World, platformId: string): boolean {
  return findModeration(world, { platform_id: platformId })?.moderation.ban.banned ?? false;
}

async function rowsOf(database: string, platformId: string): Promise<string[]> {
  const rows = await cluster.query(
    database,
    'SELECT action FROM modgate.sanctions WHERE platform_id = $1 ORDER BY id',
    [platformId],
  );
  return rows.map((row) => row['action'] as string);
}

async function allApplied(database: string): Promise<boolean> {
  const [row] = await cluster.query(
    database,
    `SELECT count(*)::int AS behind FROM modgate.servers s
      WHERE s.applied_cursor < (SELECT coalesce(max(id), 0) FROM modgate.sanctions x WHERE x.origin_server <> s.server_id)`,
  );
  return row?.['behind'] === 0;
}

/**
 * Once the one server of `database` has joined, bans of `targets` from a server that is not
 * running, 2 hours long, all put on record before a NOTIFY tells the server to read them.
 */
async function bansOnRecord(database: string, targets: readonly string[]): Promise<void> {
  await eventually(async () => (await cluster.query(database, 'SELECT 1 FROM modgate.servers')).length === 1);
  const expires = new Date(Date.now() + 2 * HOUR).toISOString();
  const rows = targets.map((platformId) => ({
    action: 'ban' as const,
    platform_id: platformId,
    expires_at: expires,
  }));
  await publishElsewhere(cluster, database, rows, { announce: false });
  await cluster.query(database, `NOTIFY ${CHANNEL}`);
}

const strangerId = strangerIds('7656119900010');

describe.runIf(postgres.run)('group mode across a kill -9', () => {
  it('publishes, once, what the daemon logged but had not captured when it was killed', async () => {
    const { url, database } = await newGroup();
    const files = await serverFiles(url, 'A');
    // The capture held: each mod event is in A's event log (fsync'd) and never reaches the
    // outbox, as with a kill -9 right after the log's write (docs/group.md, "Testing").
    const a = await run(files, {}, { MODGATE_TEST_HOLD_GROUP_CAPTURE: '1' });
    const b = await inProcess(url, 'B');
    const [inGame, answered, lifted] = [strangerId(), strangerId(), strangerId()];
    banPlayer(a.sim.world, {
      ref: { platform_id: inGame },
      reason: 'caught in game',
      permanent: true,
      duration: null,
      duration_unit: 'hours',
      squad_id: null,
      actor: { key_id: 'console', name: 'Game admin', platform_id: null, social_id: null },
    });
    // Seen as the op's answer now (published), and as the mod's event only after the restart.
    const ban = (player: string) =>
      a.call(`/v1/players/${player}/ban`, {
        method: 'POST',
        body: JSON.stringify({ duration: 2, duration_unit: 'hours', reason: 'spam' }),
      });
    expect((await ban(answered)).status).toBe(200);
    expect((await ban(lifted)).status).toBe(200);
    expect((await a.call(`/v1/players/${lifted}/ban`, { method: 'DELETE' })).status).toBe(200);
    await eventually(async () => {
      const page = (await (
        await a.call('/v1/events?types=player.banned,player.unbanned&limit=1000')
      ).json()) as {
        data: { type: string }[];
      };
      return page.data.length === 4;
    });
    const outbox = await readFile(join(files.data.dir, 'group-outbox.jsonl'), 'utf8');
    expect(outbox).not.toContain(inGame);
    await eventually(async () => (await rowsOf(database, lifted)).length === 2);
    await kill(a);

    const again = await run(files, { world: a.sim.world });
    await eventually(async () => banned(b.sim?.world as World, inGame));
    await eventually(() => allApplied(database));
    expect(await rowsOf(database, inGame)).toEqual(['ban']);
    expect(await rowsOf(database, answered)).toEqual(['ban']);
    expect(await rowsOf(database, lifted)).toEqual(['ban', 'unban']);
    const world = b.sim?.world as World;
    expect(applications(world, inGame, 'ban')).toBe(1);
    expect(applications(world, answered, 'tempban')).toBe(1);
    // B may have applied the ban before the unban was published, or skipped it as superseded
    // (docs/group.md, "Conflict rule"): either way once at most, and lifted once.
    const liftedOnB = [applications(world, lifted, 'tempban'), applications(world, lifted, 'unban')];
    expect([
      [0, 0],
      [1, 1],
    ]).toContainEqual(liftedOnB);
    expect(banned(world, lifted)).toBe(false);
    await kill(again);
  }, 180_000);

  it('applies every row once when the receiving daemon is killed in the middle of a batch', async () => {
    const { url, database } = await newGroup();
    const files = await serverFiles(url, 'B');
    const targets = Array.from({ length: 60 }, () => strangerId());
    const [refusedBefore, refusedAfter, hangsOn] = [targets[10], targets[50], targets[30]] as [
      string,
      string,
      string,
    ];
    // The game refuses two players, and never answers the ban of a third: the daemon is then
    // killed with rows 0 to 30 applied by the game (and rows after it, as many as the receiver's
    // window had in the game: docs/group.md, "Catching up") and its cursor not moved past any.
    let hang = true;
    const delivered = new Map<string, number>();
    const patchHandlers: SimulatorOptions['patchHandlers'] = (handlers) => ({
      ...handlers,
      'players.ban': async (args, ctx) => {
        if (ctx.opId !== undefined) delivered.set(ctx.opId, (delivered.get(ctx.opId) ?? 0) + 1);
        const platformId = (args.ref as { platform_id: string }).platform_id;
        if (platformId === refusedBefore || platformId === refusedAfter)
          throw new OpError('invalid', 'this game refuses that player');
        const result = await (handlers['players.ban'] as NonNullable<(typeof handlers)['players.ban']>)(
          args,
          ctx,
        );
        if (platformId === hangsOn && hang) await new Promise(() => undefined);
        return result;
      },
    });
    const b = await run(files, { patchHandlers });
    await bansOnRecord(database, targets);
    await eventually(() => banned(b.sim.world, hangsOn));
    const failuresFile = join(files.data.dir, 'group-failures.json');
    const refusals = async () =>
      JSON.parse(await readFile(failuresFile, 'utf8').catch(() => '{"failures":[]}')) as {
        failures: { platform_id: string; at: string }[];
      };
    // Rows of other players are in the game at once: the refusal of row 10 may be kept after
    // row 30 is applied, and row 50's refused already.
    let before = await refusals();
    await eventually(async () => (before = await refusals()).failures.length > 0);
    expect(before.failures[0]?.platform_id).toBe(refusedBefore);
    expect(before.failures.map((failure) => failure.platform_id)).not.toContain(hangsOn);
    await kill(b);

    hang = false;
    const again = await run(files, { world: b.sim.world, patchHandlers });
    await eventually(() => allApplied(database));
    for (const platformId of targets) {
      const refused = platformId === refusedBefore || platformId === refusedAfter;
      expect(applications(b.sim.world, platformId, 'tempban'), platformId).toBe(refused ? 0 : 1);
    }
    // The rows before the kill reached the game twice, and were applied once (PROTOCOL §6.4).
    expect([...delivered.values()].filter((times) => times === 2).length).toBeGreaterThanOrEqual(30);
    // Nothing B's game did was published back as B's own, the events read after the restart included.
    expect(
      await cluster.query(database, "SELECT 1 FROM modgate.sanctions WHERE origin_server <> 'srv_elsewhere'"),
    ).toEqual([]);
    const after = JSON.parse(await readFile(failuresFile, 'utf8')) as {
      failures: { platform_id: string; at: string }[];
    };
    expect(after.failures).toEqual([
      before.failures[0],
      expect.objectContaining({ platform_id: refusedAfter }),
    ]);
    expect((await stat(failuresFile)).mode & 0o777).toBe(0o600);
    await kill(again);
  }, 180_000);

  it('applies a joiner’s rows of different players several at once, each once', async () => {
    const { url, database } = await newGroup();
    // A slow game (each ban answers 150 ms after it is asked): how many are in it at once.
    let [inGame, most] = [0, 0];
    const told: string[] = [];
    const slowly =
      <A extends { ref: unknown }, C, R>(handler: (args: A, ctx: C) => R) =>
      async (args: A, ctx: C): Promise<Awaited<R>> => {
        told.push((args.ref as { platform_id: string }).platform_id);
        most = Math.max(most, ++inGame);
        try {
          await new Promise((resolve) => setTimeout(resolve, 150));
          return await handler(args, ctx);
        } finally {
          inGame--;
        }
      };
    const patchHandlers: SimulatorOptions['patchHandlers'] = (handlers) => ({
      ...handlers,
      'players.ban': slowly(handlers['players.ban'] as NonNullable<(typeof handlers)['players.ban']>),
    });
    const j = await inProcess(url, 'J', { patchHandlers });
    // On record before the joiner reads them: one page of 80.
    const targets = Array.from({ length: 80 }, () => strangerId());
    await bansOnRecord(database, targets);
    await eventually(() => allApplied(database), 120_000);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(32);
    for (const platformId of targets)
      expect(applications(j.sim?.world as World, platformId, 'tempban'), platformId).toBe(1);
    expect(told.sort()).toEqual([...targets].sort());
    await j.close();
  }, 180_000);

  it('stops a catch-up whose game goes away mid-window, and resumes it from the cursor, each row once', async () => {
    const { url, database } = await newGroup();
    // The game drops its link when told the 40th ban, with other bans of the window in it: the
    // first ban from the 40th on that finds the link up, since on a loaded machine the link can
    // be between two sessions then, and a drop of no link would cut nothing off.
    const told: string[] = [];
    let game: Stack | null = null;
    let dropped = false;
    const patchHandlers: SimulatorOptions['patchHandlers'] = (handlers) => ({
      ...handlers,
      'players.ban': async (args, ctx) => {
        const nth = told.push((args.ref as { platform_id: string }).platform_id);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const bridge = game?.sim?.bridge;
        if (nth >= 40 && !dropped && bridge?.connected) {
          dropped = true;
          bridge.dropLink();
        }
        return await (handlers['players.ban'] as NonNullable<(typeof handlers)['players.ban']>)(args, ctx);
      },
    });
    game = await inProcess(url, 'J', { patchHandlers });
    const world = game.sim?.world as World;
    let redialled = 0;
    game.sim?.bridge.on('connect', () => {
      if (dropped) redialled++;
    });
    const targets = Array.from({ length: 120 }, () => strangerId());
    await bansOnRecord(database, targets);
    await eventually(() => allApplied(database), 120_000);
    for (const platformId of targets) expect(applications(world, platformId, 'tempban'), platformId).toBe(1);
    // Sent again on the new link: only the bans the drop cut off (at most a window's), which
    // the game applied once all the same (their op ids, PROTOCOL §6.4).
    expect(dropped).toBe(true);
    expect(redialled).toBeGreaterThanOrEqual(1);
    expect(new Set(told)).toEqual(new Set(targets));
    expect(told.length).toBeGreaterThan(targets.length);
    expect(told.length).toBeLessThanOrEqual(targets.length + 32);
    await game.close();
  }, 180_000);

  it('answers /v1 with the database hung, and publishes the ban once it continues', async () => {
    const { url, database } = await newGroup();
    const [a, b] = [await inProcess(url, 'A'), await inProcess(url, 'B')];
    await eventually(
      async () => (await cluster.query(database, 'SELECT 1 FROM modgate.servers')).length === 2,
    );
    const player = strangerId();
    await cluster.pause();
    try {
      const answer = await a.call(`/v1/players/${player}/ban`, {
        method: 'POST',
        body: JSON.stringify({ permanent: true, reason: 'while the database hung' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(200);
      expect((await a.call(`/v1/players/${player}/moderation`)).status).toBe(200);
      // B's game has never seen the player: answered all the same, without the database.
      expect((await b.call(`/v1/players/${player}/moderation`)).status).toBe(404);
    } finally {
      await cluster.resume();
    }
    await eventually(() => banned(b.sim?.world as World, player));
    await eventually(() => allApplied(database));
    expect(await rowsOf(database, player)).toEqual(['ban']);
    expect(applications(b.sim?.world as World, player, 'ban')).toBe(1);
  }, 120_000);
});
