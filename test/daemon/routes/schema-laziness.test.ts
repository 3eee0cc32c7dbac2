import { describe, expect, it } from 'vitest';
import { lazySchemaBuilds } from '../../../protocol/lazy-schema.ts';
import { startDaemon } from '../../../daemon/daemon.ts';
import { silentLogger } from '../../../daemon/log/log.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';
import { listPlayers, listPlayerViolations } from '../../../daemon/routes/players.ts';
import { makeDataDir } from '../../../harness/data-dir.ts';
import { suiteStack } from '../../support/suite.ts';

const REF = '76561198000000001';
/** Read before any set-up runs: what importing the route table (and the daemon) built. */
const BUILT_AT_IMPORT = lazySchemaBuilds();

describe('the route table builds its schemas on first use', () => {
  // No simulator: the mod's end validates with the op catalogue, which is not what this counts.
  const stack = suiteStack({ sim: false });

  it('builds no schema when the route table is imported and the daemon starts', async () => {
    expect(ROUTES.length).toBeGreaterThan(50);
    expect(BUILT_AT_IMPORT).toBe(0);
    // A data dir's set-up sends admin requests (the CLI's in-process admin API, in this process),
    // which build those admin routes' schemas: counted from after it, the daemon's start alone.
    const data = await makeDataDir();
    const before = lazySchemaBuilds();
    const daemon = await startDaemon({
      dataDir: data.dir,
      listen: { host: '127.0.0.1', port: 0 },
      modListen: { host: '127.0.0.1', port: 0 },
      log: silentLogger,
    });
    try {
      expect(lazySchemaBuilds()).toBe(before);
    } finally {
      await daemon.close();
      await data.remove();
    }
  });

  it("builds a route's schemas on its first request, and only that route's", async () => {
    const res = await stack.call(`/v1/players/${REF}/violations?limit=0`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: 'validation_error', details: { errors: [{ in: 'query', path: 'limit' }] } },
    });
    const afterFirst = lazySchemaBuilds();
    expect(afterFirst).toBeGreaterThan(0);

    // Another route's query is built when it is first read, not before.
    const roster = listPlayers.query;
    expect(roster).toBeDefined();
    expect(lazySchemaBuilds()).toBeGreaterThan(afterFirst);
  });

  it('reads the same schema every time after the first build', async () => {
    const query = listPlayerViolations.query;
    const builds = lazySchemaBuilds();
    await stack.call(`/v1/players/${REF}/violations?limit=0`);
    expect(listPlayerViolations.query).toBe(query);
    expect(lazySchemaBuilds()).toBe(builds);
  });
});
