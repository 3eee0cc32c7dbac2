import { describe, expect, it } from 'vitest';
import { healthz, healthzRequiresMod, parseHealthBody } from '../../../daemon/http/healthz.ts';

const startedAt = new Date('2030-01-01T00:00:00.000Z');
const now = new Date('2030-01-01T01:00:30.500Z');
const connected = { modConnected: true, modVersion: '2.1.0', startedAt, apiEnabled: true };
const noMod = { modConnected: false, modVersion: null, startedAt, apiEnabled: false };

describe('healthz', () => {
  it('answers 200 with the mod status while a mod is connected', () => {
    expect(healthz(connected, { now })).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      body: {
        status: 'ok',
        service: 'modgate',
        mod_connected: true,
        mod_version: '2.1.0',
        api_enabled: true,
        started_at: '2030-01-01T00:00:00.000Z',
        uptime_sec: 3630,
        storage_faults: [],
        worker_faults: [],
      },
    });
  });

  it('answers 200 without a mod, so a load balancer keeps routing to the daemon', () => {
    const response = healthz(noMod, { now });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'degraded', mod_connected: false, mod_version: null });
  });

  it('answers 503 with Retry-After without a mod when the mod is required', () => {
    const response = healthz(noMod, { now, requireMod: true });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(healthz(connected, { now, requireMod: true }).status).toBe(200);
  });

  it('reports no mod version while no mod is connected', () => {
    expect(healthz({ ...noMod, modVersion: '2.0.0' }, { now }).body.mod_version).toBeNull();
  });

  it('never reports a negative uptime when the clock steps back', () => {
    expect(healthz(connected, { now: new Date('2029-12-31T23:00:00Z') }).body.uptime_sec).toBe(0);
  });

  it('reads ?mod=required and nothing else as the strict form', () => {
    expect(healthzRequiresMod(new URLSearchParams('mod=required'))).toBe(true);
    expect(healthzRequiresMod(new URLSearchParams('mod=1'))).toBe(false);
    expect(healthzRequiresMod(new URLSearchParams(''))).toBe(false);
  });

  it('parses its own body back and refuses a body that is not a modgate one', () => {
    const body = healthz(connected, { now }).body;
    expect(parseHealthBody(JSON.parse(JSON.stringify(body)))).toEqual(body);
    expect(parseHealthBody({ status: 'ok' })).toBeNull();
    expect(parseHealthBody(null)).toBeNull();
    expect(parseHealthBody('ok')).toBeNull();
  });
});
