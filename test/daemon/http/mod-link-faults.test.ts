import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../harness/stack.ts';
import { suiteStack } from '../../support/suite.ts';

function errorOf(json: unknown) {
  return (json as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
}

describe('a fault on the mod link never hangs a request', () => {
  const stack = suiteStack({ daemon: { pipeline: { opDeadlines: { 'server.status': 300 } } } });
  afterEach(async () => {
    stack.sim?.faults.clear();
    await stack.sim?.connected();
  });

  it('answers 504 gateway_timeout when the mod never answers', async () => {
    stack.sim?.faults.add({ op: 'server.status', kind: 'hang', times: 1 });
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(504);
    expect(errorOf(res.json).code).toBe('gateway_timeout');
  });

  it('answers 200 when the mod is late but inside the deadline', async () => {
    stack.sim?.faults.add({ op: 'server.status', kind: 'delay', ms: 50, times: 1 });
    expect((await stack.call('/v1/server')).status).toBe(200);
  });

  it('answers 503 server_unavailable with Retry-After when the link drops mid-request', async () => {
    stack.sim?.faults.add({ op: 'server.status', kind: 'drop', times: 1 });
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(503);
    expect(errorOf(res.json).code).toBe('server_unavailable');
    expect(res.headers['retry-after']).toBe('5');
  });

  it('answers 503 when the mod sends bytes that are not a valid frame, then recovers after the redial', async () => {
    stack.sim?.faults.add({ op: 'server.status', kind: 'garbage', times: 1 });
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(503);
    await eventually(async () => (await stack.call('/v1/server')).status === 200);
  });

  it.each([
    ['not_found', 404, 'not_found'],
    ['conflict', 409, 'conflict'],
    ['unavailable', 503, 'server_unavailable'],
    ['rate_limited', 429, 'rate_limited'],
    ['internal', 502, 'internal'],
  ] as const)('maps the op error %s to %i %s', async (opCode, status, apiCode) => {
    stack.sim?.faults.add({
      op: 'server.status',
      kind: 'error',
      code: opCode,
      message: 'said the mod',
      times: 1,
    });
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(status);
    expect(errorOf(res.json).code).toBe(apiCode);
    if (status === 503 || status === 429) expect(res.headers['retry-after']).toBe('5');
  });

  it('puts the game server’s rejection text in details.mod_message on an invalid op error', async () => {
    stack.sim?.faults.add({
      op: 'server.status',
      kind: 'error',
      code: 'invalid',
      message: 'no such thing',
      times: 1,
    });
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(400);
    expect(errorOf(res.json)).toMatchObject({
      code: 'validation_error',
      details: { mod_message: 'no such thing' },
    });
  });

  it('answers a bare 502 internal that leaks nothing when the mod breaks the op contract', async () => {
    stack.sim?.faults.add({ op: 'server.status', kind: 'invalid-result', times: 1 });
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(502);
    expect(errorOf(res.json).code).toBe('internal');
    expect(JSON.stringify(res.json)).not.toMatch(/player_count|zod|expected/i);
  });
});

describe('with no mod connected', () => {
  const stack = suiteStack({ sim: false });

  it('answers 503 server_unavailable with Retry-After, never online false', async () => {
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(503);
    expect(errorOf(res.json).code).toBe('server_unavailable');
    expect(res.headers['retry-after']).toBe('5');
  });

  it('serves again as soon as a mod connects, with no operator action', async () => {
    const sim = await stack.startSim();
    expect((await stack.call('/v1/server')).status).toBe(200);
    await sim.close();
    await eventually(async () => (await stack.call('/v1/server')).status === 503);
  });
});
