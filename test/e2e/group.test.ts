/**
 * Group mode against a real PostgreSQL (harness/postgres.ts) with real daemons and simulators
 * (harness/stack.ts): a sanction made on one server reaches the other servers' games, with the
 * time it has left, in order, once, and without echo (docs/group.md). One cluster for the file;
 * each test its own database, so its group starts empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupSettings } from '../../daemon/group/group.ts';
import type { SanctionAction } from '../../daemon/group/sanction.ts';
import pg from 'pg';
import { ConfigError } from '../../daemon/config/config.ts';
import { startDaemon } from '../../daemon/daemon.ts';
import { migrate, SCHEMA_VERSION } from '../../daemon/group/schema.ts';
import { createLogger, silentLogger } from '../../daemon/log/log.ts';
import { makeDataDir } from '../../harness/data-dir.ts';
import type { World } from '../../mod-sim/world/index.ts';
import { banPlayer } from '../../mod-sim/handlers/players-moderation.ts';
import { findModeration } from '../../mod-sim/handlers/players-common.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { strangerIds } from '../support/strangers.ts';
import { publishElsewhere } from '../support/group-rows.ts';
import { openFilesUnder } from '../support/open-files.ts';

const LOOSE = { limit: 1_000_000, windowSec: 60 };
const postgres = postgresAvailable('test/e2e/group.test.ts');

let cluster: PostgresCluster;
let databases = 0;

beforeAll(async () => {
  cluster = await startPostgres(postgres.binDir);
});

afterAll(async () => {
  await cluster?.cleanup();
});

/** A fresh group: its own database on the file's cluster. */
async function newGroup(): Promise<string> {
  databases += 1;
  return cluster.createDatabase(`group_${databases}`);
}

/** What a daemon of the group is started with (the listen addresses aside). */
function daemonOptionsOf(databaseUrl: string, name: string, extra: Partial<GroupSettings> = {}) {
  const group: GroupSettings = {
    databaseUrl,
    name,
    share: ['bans', 'mutes'],
    accept: ['bans', 'mutes'],
    ...extra,
  };
  return {
    listen: { host: '127.0.0.1', port: 0 },
    modListen: { host: '127.0.0.1', port: 0 },
    log: process.env['G35_DEBUG'] ? createLogger({ level: 'debug', format: 'json' }) : silentLogger,
    group,
    // The tests poll the other server's moderation read: limits far above their pace.
    pipeline: { keyRateLimit: LOOSE, edgeRateLimit: LOOSE, checkResponses: true },
  };
}

/** A daemon of the group with its simulated game, on the wall clock as real games are. */
function serverOf(databaseUrl: string, name: string, extra: Partial<GroupSettings> = {}): Promise<Stack> {
  const { group, pipeline, log } = daemonOptionsOf(databaseUrl, name, extra);
  return startStack({ sim: { wallClock: true }, daemon: { group, pipeline, log } });
}

interface Moderation {
  ban: { banned: boolean; expires_at: string | null; permanent: boolean; reason: string };
  mute: { muted: boolean; duration_minutes: number | null };
}

async function moderationOf(stack: Stack, platformId: string): Promise<Moderation> {
  const answer = await stack.call(`/v1/players/${platformId}/moderation`);
  if (answer.status === 404)
    return {
      ban: { banned: false, expires_at: null, permanent: false, reason: '' },
      mute: { muted: false, duration_minutes: null },
    };
  expect(answer.status).toBe(200);
  return answer.json as Moderation;
}

async function post(stack: Stack, path: string, body: unknown, method = 'POST') {
  const answer = await stack.call(path, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json;
}

async function rowsOf(database: string): Promise<Record<string, unknown>[]> {
  return cluster.query(
    database,
    'SELECT id, action, platform_id, origin_server FROM modgate.sanctions ORDER BY id',
  );
}

/** Each server's pending count, by name, as this server reads the group. */
async function pendingOf(stack: Stack): Promise<Map<string, number>> {
  const status = await stack.daemon.group?.status();
  return new Map(status?.servers.map((server) => [server.name, server.pending]) ?? []);
}

/** A row as a server of the group not running in this test made it (times relative to now). */
async function insertRow(
  database: string,
  row: { action: SanctionAction; platform_id: string; created: number; expires: number | null },
): Promise<void> {
  const at = (offset: number) => new Date(Date.now() + offset).toISOString();
  await publishElsewhere(
    cluster,
    database,
    {
      action: row.action,
      platform_id: row.platform_id,
      expires_at: row.expires === null ? null : at(row.expires),
      created_at: at(row.created),
    },
    { announce: false },
  );
}

const strangerId = strangerIds('7656119900000');

describe.runIf(postgres.run)('group mode', () => {
  it('brings a ban made on one server to another server’s game, once, without echo', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const [a, b] = [await serverOf(url, 'A'), await serverOf(url, 'B')];
    try {
      const player = strangerId();
      await post(a, `/v1/players/${player}/ban`, {
        duration: 24,
        duration_unit: 'hours',
        reason: 'cheating',
      });
      await eventually(async () => (await moderationOf(b, player)).ban.banned);
      const onB = await moderationOf(b, player);
      expect(onB.ban.reason).toBe('cheating');
      const onA = await moderationOf(a, player);
      // The remaining time, rounded up to the minute: never later than A's end plus a minute.
      const gap = Date.parse(onB.ban.expires_at as string) - Date.parse(onA.ban.expires_at as string);
      expect(Math.abs(gap)).toBeLessThanOrEqual(60_000);
      // B's game reported the ban as an event; it is the group's own and is not published back.
      await eventually(async () => {
        const status = (await b.daemon.group?.status())?.servers ?? [];
        return status.length === 2 && status.every((server) => server.pending === 0);
      });
      expect((await rowsOf(database)).map((row) => row['action'])).toEqual(['ban']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('applies a sanction with the time it has left, and one already run out not at all', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const b = await serverOf(url, 'B');
    try {
      const [recent, gone] = [strangerId(), strangerId()];
      // Made on a server not running now: 24 hours, 20 of them gone; and one that has ended.
      const hour = 3_600_000;
      await insertRow(database, {
        action: 'ban',
        platform_id: recent,
        created: -20 * hour,
        expires: 4 * hour,
      });
      await insertRow(database, {
        action: 'ban',
        platform_id: gone,
        created: -30 * hour,
        expires: -6 * hour,
      });
      await cluster.query(database, 'NOTIFY modgate_sanctions');
      await eventually(async () => (await moderationOf(b, recent)).ban.banned);
      const left = Date.parse((await moderationOf(b, recent)).ban.expires_at as string) - Date.now();
      expect(left).toBeGreaterThan(3.9 * hour);
      expect(left).toBeLessThanOrEqual(4 * hour + 60_000);
      await eventually(async () => (await pendingOf(b)).get('B') === 0);
      expect((await moderationOf(b, gone)).ban.banned).toBe(false);
    } finally {
      await b.close();
    }
  });

  it('gives a server whose game was offline every change it missed, in order, when it is back', async () => {
    const url = await newGroup();
    const [a, b] = [await serverOf(url, 'A'), await serverOf(url, 'B')];
    try {
      await b.sim?.close();
      const [first, second] = [strangerId(), strangerId()];
      await post(a, `/v1/players/${first}/ban`, { permanent: true, reason: 'first' });
      await post(a, `/v1/players/${second}/ban`, { permanent: true, reason: 'second' });
      await post(a, `/v1/players/${first}/ban`, undefined, 'DELETE');
      await eventually(async () => (await pendingOf(a)).get('B') === 3);
      await b.startSim({ wallClock: true });
      await eventually(async () => (await pendingOf(b)).get('B') === 0);
      expect((await moderationOf(b, second)).ban.banned).toBe(true);
      expect((await moderationOf(b, first)).ban.banned).toBe(false);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('gives a server whose daemon was down what was made meanwhile when it starts again', async () => {
    const url = await newGroup();
    const [a, b] = [await serverOf(url, 'A'), await serverOf(url, 'B')];
    try {
      const modLink = b.daemon.modLink;
      await b.daemon.close();
      const player = strangerId();
      await post(a, `/v1/players/${player}/mute`, { duration: 2, duration_unit: 'hours', reason: 'spam' });
      await eventually(async () => {
        const status = await a.daemon.group?.status();
        return status?.servers.find((server) => server.name === 'B')?.daemon_up === false;
      });
      b.daemon = await startDaemon({ ...daemonOptionsOf(url, 'B'), dataDir: b.data.dir, modListen: modLink });
      await eventually(() => b.daemon.link.peer !== null); // the simulator dials again
      await eventually(async () => (await moderationOf(b, player)).mute.muted);
      expect((await moderationOf(b, player)).mute.duration_minutes).toBe(120);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('lifts on every server a ban lifted on one, and shares a ban made in the game itself', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const [a, b] = [await serverOf(url, 'A'), await serverOf(url, 'B')];
    try {
      const player = strangerId();
      // Made in B's game, not through modgate: the mod's player.banned event is what B sees.
      banPlayer(b.sim?.world as World, {
        ref: { platform_id: player },
        reason: 'caught in game',
        permanent: true,
        duration: null,
        duration_unit: 'hours',
        squad_id: null,
        actor: { key_id: 'console', name: 'Game admin', platform_id: null, social_id: null },
      });
      await eventually(async () => (await moderationOf(a, player)).ban.banned);
      expect((await moderationOf(a, player)).ban.reason).toBe('caught in game');
      await post(a, `/v1/players/${player}/ban`, undefined, 'DELETE');
      // Asked of B's game first: a read of B's API asked before the lifting came would be answered
      // from B's read cache for its max-age (a sanction applied by the group is no client's write).
      await eventually(
        () => !findModeration(b.sim?.world as World, { platform_id: player })?.moderation.ban.banned,
      );
      expect((await moderationOf(b, player)).ban.banned).toBe(false);
      await eventually(async () => [...(await pendingOf(a)).values()].every((pending) => pending === 0));
      const rows = await rowsOf(database);
      expect(rows.map((row) => row['action'])).toEqual(['ban', 'unban']);
      const [ban] = await cluster.query(database, 'SELECT actor FROM modgate.sanctions WHERE action = $1', [
        'ban',
      ]);
      expect(ban?.['actor']).toMatchObject({ name: 'Game admin', source: 'game' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('ends a ban on one server and an unban of the same player on another, made at once, the same everywhere', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const [a, b] = [await serverOf(url, 'A'), await serverOf(url, 'B')];
    try {
      for (let round = 0; round < 3; round++) {
        const player = strangerId();
        await post(b, `/v1/players/${player}/ban`, { permanent: true, reason: 'earlier' });
        await eventually(async () => (await moderationOf(a, player)).ban.banned);
        await Promise.all([
          post(a, `/v1/players/${player}/ban`, { duration: 5, duration_unit: 'days', reason: 'again' }),
          post(b, `/v1/players/${player}/ban`, undefined, 'DELETE'),
        ]);
        await eventually(async () => [...(await pendingOf(a)).values()].every((pending) => pending === 0));
        const [last] = await cluster.query(
          database,
          'SELECT action FROM modgate.sanctions WHERE platform_id = $1 ORDER BY id DESC LIMIT 1',
          [player],
        );
        const banned = last?.['action'] === 'ban';
        expect((await moderationOf(a, player)).ban.banned).toBe(banned);
        expect((await moderationOf(b, player)).ban.banned).toBe(banned);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('keeps to what each server shares and accepts', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const a = await serverOf(url, 'A');
    const hardcore = await serverOf(url, 'Hardcore', { share: ['bans'], accept: ['bans'] });
    try {
      const [muted, banned, ownMute] = [strangerId(), strangerId(), strangerId()];
      await post(a, `/v1/players/${muted}/mute`, { permanent: true, reason: 'spam' });
      await post(a, `/v1/players/${banned}/ban`, { permanent: true, reason: 'cheat' });
      await post(hardcore, `/v1/players/${ownMute}/mute`, { permanent: true, reason: 'our rule' });
      await eventually(async () => (await moderationOf(hardcore, banned)).ban.banned);
      await eventually(async () => (await pendingOf(a)).get('Hardcore') === 0);
      expect((await moderationOf(hardcore, muted)).mute.muted).toBe(false);
      const rows = await rowsOf(database);
      expect(rows.map((row) => [row['action'], row['platform_id']])).toEqual([
        ['mute', muted],
        ['ban', banned],
      ]);
    } finally {
      await Promise.all([a.close(), hardcore.close()]);
    }
  });

  it('answers /v1 with the database down and publishes what was made meanwhile once it is back', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const [a, b] = [await serverOf(url, 'A'), await serverOf(url, 'B')];
    try {
      await cluster.stop({ mode: 'immediate' });
      const player = strangerId();
      try {
        await post(a, `/v1/players/${player}/ban`, {
          duration: 3,
          duration_unit: 'days',
          reason: 'while down',
        });
        expect((await moderationOf(a, player)).ban.banned).toBe(true);
        expect((await a.daemon.group?.status())?.database_connected).toBe(false);
      } finally {
        await cluster.start();
      }
      await eventually(async () => (await moderationOf(b, player)).ban.banned, 60_000);
      expect((await rowsOf(database)).length).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('creates the schema once when many daemons start against an empty database at once', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const clients = Array.from({ length: 10 }, () => new pg.Client({ connectionString: url }));
    await Promise.all(clients.map((client) => client.connect()));
    try {
      const found = await Promise.all(clients.map((client) => migrate(client)));
      expect(found.filter((version) => version === 0)).toHaveLength(1);
      expect(found.filter((version) => version === SCHEMA_VERSION)).toHaveLength(9);
      expect(await cluster.query(database, 'SELECT version FROM modgate.schema_version')).toEqual([
        { version: SCHEMA_VERSION },
      ]);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  it('refuses to start against a schema newer than it knows, naming both versions', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const a = await serverOf(url, 'A');
    await a.close();
    await cluster.query(database, 'UPDATE modgate.schema_version SET version = $1', [SCHEMA_VERSION + 1]);
    const data = await makeDataDir();
    try {
      const starting = startDaemon({ ...daemonOptionsOf(url, 'B'), dataDir: data.dir });
      await expect(starting).rejects.toThrow(ConfigError);
      await expect(starting).rejects.toThrow(
        `schema version ${SCHEMA_VERSION + 1}, newer than this modgate knows (${SCHEMA_VERSION})`,
      );
      // What the steps before the group's opened, the failed start closed.
      expect(await openFilesUnder(data.dir)).toEqual([]);
    } finally {
      await data.remove();
    }
  });

  it('skips a sanction a later one of the same player and kind decides', async () => {
    const url = await newGroup();
    const database = new URL(url).pathname.slice(1);
    const b = await serverOf(url, 'B');
    try {
      await b.sim?.close();
      const player = strangerId();
      await insertRow(database, { action: 'ban', platform_id: player, created: -60_000, expires: null });
      await insertRow(database, { action: 'unban', platform_id: player, created: -30_000, expires: null });
      await b.startSim({ wallClock: true });
      await eventually(async () => (await pendingOf(b)).get('B') === 0);
      // Had the ban been applied before the unban, the game would list both.
      const violations = await b.call(`/v1/players/${player}/violations`);
      expect(violations.status).toBe(404); // the game holds nothing for a player it never banned
    } finally {
      await b.close();
    }
  });
});
