/**
 * Group mode against a real PostgreSQL (harness/postgres.ts) with real daemons and simulators
 * (harness/stack.ts): a sanction made on one server reaches the other servers' games, with the
 * time it has left, in order, once, and without echo (docs/group.md). One cluster for the file;
 * each test its own database, so its group starts empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupSettings } from '../../daemon/group/group.ts';
import { createLogger } from '../../daemon/log/log.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';

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

function serverOf(databaseUrl: string, name: string, extra: Partial<GroupSettings> = {}): Promise<Stack> {
  const group: GroupSettings = {
    databaseUrl,
    name,
    share: ['bans', 'mutes'],
    accept: ['bans', 'mutes'],
    ...extra,
  };
  // The tests poll the other server's moderation read: a key limit far above their pace.
  // The games on the wall clock, as real ones are: the remaining time is counted on it.
  return startStack({
    sim: { wallClock: true },
    daemon: {
      group,
      pipeline: { keyRateLimit: LOOSE, edgeRateLimit: LOOSE },
      ...(process.env['G35_DEBUG'] ? { log: createLogger({ level: 'debug', format: 'json' }) } : {}),
    },
  });
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

/** A platform id no simulator has a player with. */
let players = 0;
function strangerId(): string {
  players += 1;
  return `7656119900000${String(1000 + players)}`;
}

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
});
