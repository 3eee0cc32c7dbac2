import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../../daemon/http/rate-limiter.ts';
import { suiteStack } from '../../../support/suite.ts';

describe('RateLimiter', () => {
  it('allows the limit per window, then refuses until the window resets', () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 2, windowSec: 10 }, () => now);
    expect(limiter.take('k').remaining).toBe(1);
    expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 0, resetSec: 10 });
    now = 4_500;
    expect(limiter.take('k')).toMatchObject({ allowed: false, remaining: 0, resetSec: 6 });
    now = 10_000;
    expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('counts subjects separately', () => {
    const limiter = new RateLimiter({ limit: 1, windowSec: 60 });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('refuses a policy that cannot be enforced', () => {
    expect(() => new RateLimiter({ limit: 0, windowSec: 60 })).toThrow();
    expect(() => new RateLimiter({ limit: 1, windowSec: 0.5 })).toThrow();
  });
});

describe('per-key limit', () => {
  const stack = suiteStack({ daemon: { pipeline: { keyRateLimit: { limit: 3, windowSec: 60 } } } });

  it('counts down RateLimit-Remaining and answers 429 with Retry-After past the limit', async () => {
    const remaining = [];
    for (let i = 0; i < 3; i++)
      remaining.push((await stack.call('/v1/server')).headers['ratelimit-remaining']);
    expect(remaining).toEqual(['2', '1', '0']);
    const res = await stack.call('/v1/server');
    expect(res.status).toBe(429);
    expect((res.json as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['ratelimit-policy']).toBe('3;w=60');
  });

  it('keeps each key to its own budget', async () => {
    const { key } = await stack.data.createKey('--name', 'second');
    const other = { authorization: `Bearer ${key}` };
    expect((await stack.call('/v1/server', { headers: other })).status).toBe(200);
  });
});

describe('edge (per-address) limit', () => {
  const stack = suiteStack({ daemon: { pipeline: { edgeRateLimit: { limit: 2, windowSec: 60 } } } });

  it('refuses an address past its limit before looking at the key', async () => {
    const from = { remoteAddress: '198.51.100.7', anonymous: true };
    expect((await stack.call('/v1/server', from)).status).toBe(401);
    expect((await stack.call('/v1/server', from)).status).toBe(401);
    const res = await stack.call('/v1/server', from);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    expect((await stack.call('/v1/server', { remoteAddress: '198.51.100.8' })).status).toBe(200);
  });

  it('counts a whole IPv6 /64 as one client', async () => {
    expect((await stack.call('/v1/server', { remoteAddress: '2001:db8:0:1::1' })).status).toBe(200);
    expect((await stack.call('/v1/server', { remoteAddress: '2001:db8:0:1::2' })).status).toBe(200);
    expect((await stack.call('/v1/server', { remoteAddress: '2001:db8:0:1:ffff::3' })).status).toBe(429);
    expect((await stack.call('/v1/server', { remoteAddress: '2001:db8:0:2::1' })).status).toBe(200);
  });
});
