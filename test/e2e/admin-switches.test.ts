/**
 * PUT /admin/v1/api and /admin/v1/plan over admin.sock of a real `modgate serve`: /v1 follows on
 * the very next request (each check runs right after the answer, never waiting: the change is
 * applied before the admin API answers, not picked up by a watcher), the plan takes what `plan
 * set` takes, and both survive a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { startServe, stop, type Served } from '../../harness/processes.ts';

describe('the API switch and the plan over the admin API', () => {
  let data: TestDataDir;
  let served: Served;
  let key: string;
  const admin = (method: string, path: string, body?: unknown) =>
    adminRequest({ dataDir: data.dir, method, path, ...(body === undefined ? {} : { body }) });
  const v1Status = async () =>
    (
      await fetch(`http://127.0.0.1:${served.apiPort}/v1/players`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).status;

  beforeAll(async () => {
    data = await makeDataDir();
    key = (await data.createKey()).key;
    served = await startServe(data.dir);
  }, 60_000);

  afterAll(async () => {
    await stop(served.serve);
    await data.remove();
  });

  it('turns /v1 off and on from the next request on', async () => {
    // No mod is connected: an enabled API answers 503 server_unavailable, a disabled one 404.
    expect(await v1Status()).toBe(503);
    for (const enabled of [false, true, false, true]) {
      const answer = await admin('PUT', '/admin/v1/api', { enabled });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ enabled });
      expect(await v1Status()).toBe(enabled ? 503 : 404);
    }
  });

  it('ends premium from the next request on, and restores it', async () => {
    const off = await admin('PUT', '/admin/v1/plan', { premium: false });
    expect(off.json).toEqual({ premium: false, until: null, features: [], active: false });
    expect(await v1Status()).toBe(403);
    const on = await admin('PUT', '/admin/v1/plan', {
      premium: true,
      until: '2999-01-31',
      features: ['shop'],
    });
    expect(on.json).toEqual({
      premium: true,
      until: '2999-01-31T00:00:00.000Z',
      features: ['shop'],
      active: true,
    });
    expect(await v1Status()).toBe(503);
  });

  it('counts the /v1 answers by status class in GET /admin/v1/status', async () => {
    const status = (await admin('GET', '/admin/v1/status')).json as {
      requests: { window_minutes: number; totals: Record<string, number> };
    };
    expect(status.requests.window_minutes).toBe(60);
    // The 404s and 403 above, and the 503s of the offline mod.
    expect(status.requests.totals['4xx']).toBeGreaterThanOrEqual(3);
    expect(status.requests.totals['5xx']).toBeGreaterThanOrEqual(3);
  });

  it('refuses a plan that plan set would refuse, naming the field', async () => {
    for (const body of [
      { premium: true, until: '2030-02-30' },
      { premium: true, features: ['gold'] },
      { premium: 'yes' },
      { premium: true, extra: 1 },
    ]) {
      const answer = await admin('PUT', '/admin/v1/plan', body);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: 'validation_error' } });
    }
    expect((await admin('GET', '/admin/v1/plan')).json).toMatchObject({ premium: true, features: ['shop'] });
  });

  it('keeps both after a restart', async () => {
    await admin('PUT', '/admin/v1/api', { enabled: false });
    await stop(served.serve);
    served = await startServe(data.dir);
    expect((await admin('GET', '/admin/v1/api')).json).toEqual({ enabled: false });
    expect((await admin('GET', '/admin/v1/plan')).json).toMatchObject({
      premium: true,
      until: '2999-01-31T00:00:00.000Z',
    });
    expect(await v1Status()).toBe(404);
  }, 60_000);
});
