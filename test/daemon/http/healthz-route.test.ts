import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';

describe('GET /healthz', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      sim: false,
      daemon: { pipeline: { edgeRateLimit: { limit: 1, windowSec: 60 } } },
    });
  });
  afterAll(() => stack.close());

  it('answers 200 without a key while no mod is connected, saying so', async () => {
    const res = await stack.call('/healthz', { anonymous: true });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ service: 'modgate', mod_connected: false, api_enabled: true });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 with Retry-After for ?mod=required until a mod connects', async () => {
    const res = await stack.call('/healthz?mod=required', { anonymous: true });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    const sim = await stack.startSim();
    await eventually(
      async () => (await stack.call('/healthz?mod=required', { anonymous: true })).status === 200,
    );
    expect((await stack.call('/healthz', { anonymous: true })).json).toMatchObject({
      mod_connected: true,
      mod_version: '2.1.0',
    });
    await sim.close();
  });

  it('answers while the API is disabled', async () => {
    await stack.data.cli('api', 'disable', '--data-dir', stack.data.dir);
    // Reads the daemon's snapshot, not /v1: the edge limit of this stack allows one /v1 request per address.
    await eventually(() => !stack.daemon.snapshot.current().state.apiEnabled);
    expect((await stack.call('/healthz', { anonymous: true })).json).toMatchObject({ api_enabled: false });
    await stack.data.cli('api', 'enable', '--data-dir', stack.data.dir);
    await eventually(() => stack.daemon.snapshot.current().state.apiEnabled);
  });

  it('does not spend the per-address limit, which probes from one balancer would exhaust', async () => {
    const from = { anonymous: true, remoteAddress: '192.0.2.50' };
    for (let i = 0; i < 5; i++) expect((await stack.call('/healthz', from)).status).toBe(200);
    expect((await stack.call('/v1/server', from)).status).toBe(401);
    expect((await stack.call('/v1/server', from)).status).toBe(429);
  });
});
