/**
 * Group mode with the data dir's disk really full (a small tmpfs, root only; harness/tmpfs.ts) and
 * the group's database down (docs/group.md, "Full disk"): a /v1 ban still applies to its own game
 * and answers 200; its outbox line is written once space returns, so a kill -9 after that loses
 * nothing, and the ban is published to the group exactly once when the database is back. Where
 * mounting is impossible this file says so on stderr and is skipped; .ci/run sets
 * MODGATE_REQUIRE_TMPFS=1, and then it fails.
 */
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupSettings } from '../../daemon/group/group.ts';
import { runOk } from '../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../harness/data-dir.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { startServe, stop, type Served } from '../../harness/processes.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { fillDisk, mountTmpfs } from '../../harness/tmpfs.ts';
import { findModeration } from '../../mod-sim/handlers/players-common.ts';
import { dialSimulator } from '../../harness/sim-dial.ts';
import type { Simulator } from '../../mod-sim/simulator.ts';
import type { World } from '../../mod-sim/world/index.ts';

const postgres = postgresAvailable('test/e2e/group-disk-full.test.ts');
const disk = mountTmpfs('4m', 'test/e2e/group-disk-full.test.ts');
const PLAYER = '76561199000020001';
/** tmpfs's page, the unit it allocates a file's bytes in. */
const PAGE = 4096;

let cluster: PostgresCluster;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (postgres.run && disk.run) cluster = await startPostgres(postgres.binDir);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await cluster?.cleanup();
  disk.unmount();
});

/** `modgate serve` in the group, with a simulated game (`world`: the same game as before). */
async function serveA(
  dir: string,
  config: string,
  world?: World,
): Promise<{ served: Served; sim: Simulator }> {
  const served = await startServe(dir, { extra: ['--config', config] });
  cleanups.push(() => stop(served.serve));
  const sim = await dialSimulator(dir, served.modPort, { wallClock: true, ...(world ? { world } : {}) });
  cleanups.push(() => sim.close());
  return { served, sim };
}

describe.runIf(postgres.run && disk.run)('a ban in group mode when the data dir disk is full', () => {
  it('applies to its own game, is kept once space returns, and is published once', async () => {
    if (disk.failure !== null) throw new Error(`MODGATE_REQUIRE_TMPFS=1 but a tmpfs: ${disk.failure}`);
    const url = await cluster.createDatabase('full_disk');
    const dir = join(disk.path, 'data');
    await premiumDataDir(dir);
    await runOk(['api', 'enable', '--data-dir', dir]);
    const { key } = await createKey(dir, '--name', 'moderator', '--scopes', 'all');
    const config = join(disk.path, 'group.toml');
    await writeFile(config, `[group]\ndatabase_url = "${url}"\nname = "A"\n`);
    const group: GroupSettings = { databaseUrl: url, name: 'B', share: ['bans'], accept: ['bans'] };
    const b: Stack = await startStack({ sim: { wallClock: true }, daemon: { group } });
    cleanups.push(() => b.close());
    const a = await serveA(dir, config);
    await eventually(
      async () => (await cluster.query('full_disk', 'SELECT 1 FROM modgate.servers')).length === 2,
    );

    await cluster.stop({ mode: 'immediate' });
    // A full file system still takes bytes into a file's last, partly used page: pad the outbox
    // to a page's end (blank lines, which it skips), so its next line needs a page there is not.
    const outbox = join(dir, 'group-outbox.jsonl');
    await appendFile(outbox, '\n'.repeat(PAGE - ((await stat(outbox)).size % PAGE)));
    const filler = await fillDisk(disk.path);
    const answer = await fetch(`http://127.0.0.1:${a.served.apiPort}/v1/players/${PLAYER}/ban`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ permanent: true, reason: 'on a full disk' }),
    });
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(findModeration(a.sim.world, { platform_id: PLAYER })?.moderation.ban.banned).toBe(true);
    expect(await readFile(outbox, 'utf8')).not.toContain(PLAYER);

    await rm(filler);
    await eventually(async () => (await readFile(outbox, 'utf8')).includes(PLAYER));
    await stop(a.served.serve, 'SIGKILL');
    await a.sim.close();
    await cluster.start();
    await serveA(dir, config, a.sim.world);
    const world = b.sim?.world as World;
    await eventually(() => findModeration(world, { platform_id: PLAYER })?.moderation.ban.banned === true);
    await eventually(async () => {
      const rows = await cluster.query(
        'full_disk',
        'SELECT applied_cursor::int AS cursor FROM modgate.servers',
      );
      return rows.every((row) => row['cursor'] === 1);
    });
    const rows = await cluster.query('full_disk', 'SELECT action, platform_id FROM modgate.sanctions');
    expect(rows).toEqual([{ action: 'ban', platform_id: PLAYER }]);
    const record = findModeration(world, { platform_id: PLAYER });
    expect([...(record?.violations ?? [])].filter((entry) => entry.action === 'ban')).toHaveLength(1);
  }, 180_000);
});
