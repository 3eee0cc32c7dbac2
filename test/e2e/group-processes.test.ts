/**
 * Group mode as an operator runs it: `modgate serve` processes with `[group]` in their config
 * file, a real PostgreSQL reached over TLS with `sslmode=verify-full` (harness/postgres.ts), and
 * `modgate group status`. A ban answered just before a kill -9, with the database down so it
 * cannot have been published, is published once after the restart; a sanction from the group its
 * game refuses is counted by `group status`; a database schema newer
 * than the daemon knows stops serve with exit 2 naming both versions (docs/group.md).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../daemon/group/schema.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { run } from '../../harness/cli.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { start, startServeAndSim, stop, type ServeAndSim } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';
import { publishElsewhere } from '../support/group-rows.ts';

const postgres = postgresAvailable('test/e2e/group-processes.test.ts');

describe.runIf(postgres.run)('group mode across processes', () => {
  let cluster: PostgresCluster;
  let data: TestDataDir;
  let key: string;
  let config: string;
  const running: ServeAndSim[] = [];

  beforeAll(async () => {
    cluster = await startPostgres(postgres.binDir);
    await cluster.createDatabase('group');
    data = await makeDataDir();
    key = (await data.createKey('--name', 'moderator')).key;
    config = join(data.dir, '..', `${data.dir.split('/').at(-1)}-group.toml`);
    const url = cluster.tlsUrl('group');
    await writeFile(config, `[group]\ndatabase_url = "${url}"\nname = "Alpha"\n`);
  });

  afterAll(async () => {
    await Promise.all(running.map(async ({ serve, sim }) => Promise.all([stop(sim), stop(serve)])));
    await cluster?.cleanup();
  });

  async function serveInGroup(simExtra: readonly string[] = []): Promise<ServeAndSim> {
    const served = await startServeAndSim(data.dir, {
      extra: ['--config', config],
      simExtra,
    });
    running.push(served);
    return served;
  }

  it('publishes once, after a restart, a ban answered just before a kill -9', async () => {
    const first = await serveInGroup();
    await eventually(
      async () => (await cluster.query('group', 'SELECT 1 FROM modgate.servers')).length === 1,
    );
    await cluster.stop({ mode: 'immediate' });
    let answer: Response;
    try {
      answer = await fetch(`http://127.0.0.1:${first.apiPort}/v1/players/76561199000009001/ban`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ permanent: true, reason: 'before the crash' }),
      });
      expect(answer.status).toBe(200);
      await stop(first.serve, 'SIGKILL');
      await stop(first.sim);
    } finally {
      await cluster.start();
    }
    const second = await serveInGroup();
    await eventually(
      async () => (await cluster.query('group', 'SELECT 1 FROM modgate.sanctions')).length > 0,
    );
    const rows = await cluster.query('group', 'SELECT action, platform_id, reason FROM modgate.sanctions');
    expect(rows).toEqual([{ action: 'ban', platform_id: '76561199000009001', reason: 'before the crash' }]);

    const status = await run(['group', 'status', '--data-dir', data.dir, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const { servers, refused_here } = JSON.parse(status.stdout) as {
      servers: Record<string, unknown>[];
      refused_here: number;
    };
    expect(servers).toEqual([
      expect.objectContaining({ name: 'Alpha', daemon_up: true, link_up: true, pending: 0 }),
    ]);
    expect(refused_here).toBe(0);
    await Promise.all([stop(second.sim), stop(second.serve)]);
  });

  it('counts in group status the sanctions from the group its game refused', async () => {
    const served = await serveInGroup(['--fault', 'players.ban=error:invalid:no such realm,times:1']);
    // A ban another server of the group published (one not running here), announced as any is.
    await publishElsewhere(cluster, 'group', { action: 'ban', platform_id: '76561199000009002' });
    const refused = async () => {
      const status = await run(['group', 'status', '--data-dir', data.dir, '--json']);
      expect(status.code, status.stderr).toBe(0);
      return (JSON.parse(status.stdout) as { refused_here: number }).refused_here;
    };
    await eventually(async () => (await refused()) === 1);
    const status = await run(['group', 'status', '--data-dir', data.dir]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("This server's game refused 1 sanction from the group");
    await Promise.all([stop(served.sim), stop(served.serve)]);
  });

  it('refuses to serve against a schema newer than it knows, with exit 2 naming both versions', async () => {
    await cluster.query('group', 'UPDATE modgate.schema_version SET version = $1', [SCHEMA_VERSION + 1]);
    try {
      const serve = start([
        'serve',
        '--data-dir',
        data.dir,
        '--config',
        config,
        '--listen',
        '127.0.0.1:0',
        '--mod-listen',
        '127.0.0.1:0',
      ]);
      expect(await serve.exited()).toBe(2);
      expect(serve.stderrText()).toContain(
        `schema version ${SCHEMA_VERSION + 1}, newer than this modgate knows (${SCHEMA_VERSION})`,
      );
    } finally {
      await cluster.query('group', 'UPDATE modgate.schema_version SET version = $1', [SCHEMA_VERSION]);
    }
  });
});
