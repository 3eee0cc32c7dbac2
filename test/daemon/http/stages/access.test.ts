import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../harness/stack.ts';
import { suiteStack } from '../../../support/suite.ts';

const ENVELOPE_KEYS = ['code', 'message', 'request_id'];

function errorOf(json: unknown): {
  code: string;
  message: string;
  request_id: string;
  details?: Record<string, unknown>;
} {
  return (json as { error: never }).error;
}

describe('access stages', () => {
  const stack = suiteStack();

  it('answers a valid key with 200 and the server status', async () => {
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ online: true, name: 'Test server', mod_version: '2.1.0' });
  });

  it('refuses a request without a key with 401, the envelope and a Bearer challenge', async () => {
    const res = await stack.call('/v1/server', { anonymous: true });
    expect(res.status).toBe(401);
    expect(Object.keys(errorOf(res.json))).toEqual(ENVELOPE_KEYS);
    expect(errorOf(res.json).code).toBe('unauthorized');
    expect(errorOf(res.json).request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="modgate"');
  });

  it.each([
    ['a Basic credential', 'Basic dXNlcjpwYXNz'],
    ['a malformed key', 'Bearer not-a-key'],
    ['an unknown key', 'Bearer mg_live_aaaaaaaaaaaa_0123456789012345678901234567890123456789'],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with 401', async (_what, authorization) => {
    const res = await stack.call('/v1/server', { anonymous: true, headers: { authorization } });
    expect(res.status).toBe(401);
    expect(errorOf(res.json).code).toBe('unauthorized');
  });

  it('refuses a key with the right id but a wrong secret with 401', async () => {
    const forged = stack.key.slice(0, -1) + (stack.key.endsWith('A') ? 'B' : 'A');
    const res = await stack.call('/v1/server', { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(401);
  });

  it('refuses a revoked key at once after `keys revoke`, without restart', async () => {
    const { id, key } = await stack.data.createKey('--name', 'to-revoke');
    const auth = { authorization: `Bearer ${key}` };
    await eventually(async () => (await stack.call('/v1/server', { headers: auth })).status === 200);
    expect((await stack.data.cli('keys', 'revoke', '--data-dir', stack.data.dir, id)).code).toBe(0);
    await eventually(async () => (await stack.call('/v1/server', { headers: auth })).status === 401);
    const res = await stack.call('/v1/server', { headers: auth });
    expect(errorOf(res.json).message).toMatch(/revoked/);
  });

  it('answers 403 insufficient_scope naming the missing scope', async () => {
    const { key } = await stack.data.createKey('--name', 'reader', '--scopes', 'players:read');
    await eventually(async () => stack.daemon.snapshot.current().keysById.size >= 3);
    const res = await stack.call('/v1/server', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(403);
    expect(errorOf(res.json)).toMatchObject({
      code: 'insufficient_scope',
      details: { missing_scope: 'server:read' },
    });
  });

  describe('IP allowlists', () => {
    let ipv4Key: string;
    let ipv6Key: string;
    beforeAll(async () => {
      ipv4Key = (await stack.data.createKey('--name', 'v4', '--allow-ip', '10.0.0.0/8')).key;
      ipv6Key = (await stack.data.createKey('--name', 'v6', '--allow-ip', '2001:db8::/32')).key;
      await eventually(() =>
        [...stack.daemon.snapshot.current().keysById.values()].some((k) => k.name === 'v6'),
      );
    });
    const as = (key: string, remoteAddress: string) =>
      stack.call('/v1/server', { headers: { authorization: `Bearer ${key}` }, remoteAddress });

    it('refuses an address outside the allowlist with 403 ip_not_allowed', async () => {
      const res = await as(ipv4Key, '192.0.2.1');
      expect(res.status).toBe(403);
      expect(errorOf(res.json).code).toBe('ip_not_allowed');
    });

    it('accepts an IPv4 address inside the range, also in IPv4-mapped IPv6 form', async () => {
      expect((await as(ipv4Key, '10.1.2.3')).status).toBe(200);
      expect((await as(ipv4Key, '::ffff:10.1.2.3')).status).toBe(200);
    });

    it('matches IPv6 ranges and never matches across address families', async () => {
      expect((await as(ipv6Key, '2001:db8:1::7')).status).toBe(200);
      expect((await as(ipv6Key, '2001:db9::1')).status).toBe(403);
      expect((await as(ipv6Key, '10.1.2.3')).status).toBe(403);
    });
  });
});

describe('the API switch and the plan', () => {
  const stack = suiteStack();

  const setPlan = (...flags: string[]) =>
    stack.data.cli('plan', 'set', '--data-dir', stack.data.dir, ...flags);
  const waitFor = (status: number) =>
    eventually(async () => (await stack.call('/v1/server')).status === status);

  it('answers 404 on every /v1 path, existing or not, once the API is disabled', async () => {
    await stack.data.cli('api', 'disable', '--data-dir', stack.data.dir);
    await waitFor(404);
    for (const path of ['/v1/server', '/v1/nope', '/v1', '/v1/players/76561190000000001']) {
      const res = await stack.call(path);
      expect(res.status, path).toBe(404);
      expect(errorOf(res.json).code).toBe('not_found');
    }
    const anonymous = await stack.call('/v1/server', { anonymous: true });
    expect(anonymous.status).toBe(404);
    await stack.data.cli('api', 'enable', '--data-dir', stack.data.dir);
    await waitFor(200);
  });

  it('keeps /openapi.json available while the API is disabled', async () => {
    await stack.data.cli('api', 'disable', '--data-dir', stack.data.dir);
    await waitFor(404);
    expect((await stack.call('/openapi.json', { anonymous: true })).status).toBe(200);
    await stack.data.cli('api', 'enable', '--data-dir', stack.data.dir);
    await waitFor(200);
  });

  it('answers 403 premium_required when the plan is off, and 200 again after renewal', async () => {
    await setPlan('--premium', 'off');
    await waitFor(403);
    expect(errorOf((await stack.call('/v1/server')).json).code).toBe('premium_required');
    await setPlan('--premium', 'on', '--features', 'shop');
    await waitFor(200);
  });

  it('answers 403 premium_required once the plan has lapsed', async () => {
    await setPlan('--premium', 'on', '--until', '2020-01-01');
    await waitFor(403);
    await setPlan('--premium', 'on');
    await waitFor(200);
  });

  it('checks the key before the plan, so a stranger learns nothing about it', async () => {
    await setPlan('--premium', 'off');
    await waitFor(403);
    expect((await stack.call('/v1/server', { anonymous: true })).status).toBe(401);
    await setPlan('--premium', 'on');
    await waitFor(200);
  });
});
