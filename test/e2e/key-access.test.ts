/**
 * Key-level access over the real HTTP listener: the RateLimit headers describe the key's own
 * limit once the key is known (docs/pipeline.md: "per API key"),
 * also on the 403s answered before the per-key stage; and an IPv4-mapped allowlist entry means
 * the IPv4 address it carries (ipaddr.js `process()` on both sides).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoadedKey, errorOf, http, type HttpResult } from '../support/http.ts';
import { startStack, type Stack } from '../../harness/stack.ts';

const KEY_POLICY = '5;w=20';
const EDGE_POLICY = '1000;w=60';

function limitHeaders(res: HttpResult) {
  return {
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    policy: res.headers.get('ratelimit-policy'),
    reset: Number(res.headers.get('ratelimit-reset')),
  };
}

describe('key access over HTTP', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      // No `shop` feature: the pack routes answer 403 premium_required.
      dataDir: { features: 'none' },
      sim: false,
      daemon: {
        pipeline: {
          keyRateLimit: { limit: 5, windowSec: 20 },
          edgeRateLimit: { limit: 1000, windowSec: 60 },
        },
      },
    });
  });
  afterAll(() => stack.close());

  describe('RateLimit headers on a 403 after authentication', () => {
    it('describe the key’s own limit on insufficient_scope and premium_required, and spend none of it', async () => {
      const { key } = await createLoadedKey(stack, '--scopes', 'server:read,packs:read');
      const spent = Number((await http(stack, '/v1/server', { key })).headers.get('ratelimit-remaining'));
      const scope = await http(stack, '/v1/players', { key });
      const premium = await http(stack, '/v1/packs', { key });
      expect([errorOf(scope.json).code, errorOf(premium.json).code]).toEqual([
        'insufficient_scope',
        'premium_required',
      ]);
      for (const res of [scope, premium]) {
        expect(res.status).toBe(403);
        expect(limitHeaders(res)).toMatchObject({ limit: '5', remaining: String(spent), policy: KEY_POLICY });
        expect(limitHeaders(res).reset).toBeGreaterThanOrEqual(1);
        expect(limitHeaders(res).reset).toBeLessThanOrEqual(20);
      }
    });

    it('describe the key’s own limit on ip_not_allowed', async () => {
      const { key } = await createLoadedKey(stack, '--scopes', 'server:read', '--allow-ip', '203.0.113.7');
      const res = await http(stack, '/v1/server', { key });
      expect([res.status, errorOf(res.json).code]).toEqual([403, 'ip_not_allowed']);
      expect(limitHeaders(res)).toMatchObject({ limit: '5', remaining: '5', policy: KEY_POLICY });
    });

    it('still describe the edge limit before a key is known', async () => {
      const res = await http(stack, '/v1/server', { key: null });
      expect(res.status).toBe(401);
      expect(limitHeaders(res)).toMatchObject({ limit: '1000', policy: EDGE_POLICY });
    });
  });

  describe('an IPv4-mapped allowlist entry', () => {
    it('is stored as the IPv4 address it carries and admits that client', async () => {
      const created = await createLoadedKey(
        stack,
        '--scopes',
        'server:read',
        '--allow-ip',
        '::ffff:127.0.0.1/128',
      );
      expect(created.allow_ips).toEqual(['127.0.0.1/32']);
      // The daemon listens on 127.0.0.1, so the socket reports the client as 127.0.0.1; past the
      // allowlist, this stack has no mod connected: 503.
      const res = await http(stack, '/v1/server', { key: created.key });
      expect([res.status, errorOf(res.json).code]).toEqual([503, 'server_unavailable']);
    });

    it('admits a mapped range, and nobody outside it', async () => {
      const inside = await createLoadedKey(
        stack,
        '--scopes',
        'server:read',
        '--allow-ip',
        '::ffff:127.0.0.0/104',
      );
      const outside = await createLoadedKey(
        stack,
        '--scopes',
        'server:read',
        '--allow-ip',
        '::ffff:127.0.0.2',
      );
      expect(inside.allow_ips).toEqual(['127.0.0.0/8']);
      expect((await http(stack, '/v1/server', { key: inside.key })).status).toBe(503);
      const refused = await http(stack, '/v1/server', { key: outside.key });
      expect([refused.status, errorOf(refused.json).code]).toEqual([403, 'ip_not_allowed']);
    });
  });
});
