import { describe, expect, it } from 'vitest';
import { lazySchemaBuilds } from '../../../protocol/lazy-schema.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';
import { listPlayers, listPlayerViolations } from '../../../daemon/routes/players.ts';
import { suiteStack } from '../../support/suite.ts';

const REF = '76561198000000001';

describe('the route table builds its schemas on first use', () => {
  // No simulator: the mod's end validates with the op catalogue, which is not what this counts.
  const stack = suiteStack({ sim: false });

  it('builds no schema when the route table is imported and the daemon starts', () => {
    expect(ROUTES.length).toBeGreaterThan(50);
    expect(stack.daemon).toBeDefined();
    expect(lazySchemaBuilds()).toBe(0);
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
