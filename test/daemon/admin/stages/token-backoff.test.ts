import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../daemon/http/api-error.ts';
import {
  CODE_CREDENTIAL,
  TokenBackoff,
  tokenCredential,
} from '../../../../daemon/admin/stages/token-backoff.ts';

const T = 'token:aaaaaaaaaaaa';

describe('TokenBackoff', () => {
  it('refuses an address 429 with Retry-After once it reaches the failures of a window', () => {
    let now = 0;
    const backoff = new TokenBackoff({ maxFailures: 3, windowMs: 60_000 }, () => now);
    for (let i = 0; i < 3; i++) {
      backoff.check('10.0.0.1', T);
      backoff.failed('10.0.0.1', T);
    }
    now = 15_000;
    let refused: unknown;
    try {
      backoff.check('10.0.0.1', T);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('rate_limited');
    expect((refused as ApiError).headers['retry-after']).toBe('45');
    expect(() => backoff.check('10.0.0.2', T)).not.toThrow();
  });

  it('lets the address try again once the window has passed', () => {
    let now = 0;
    const backoff = new TokenBackoff({ maxFailures: 1, windowMs: 1_000 }, () => now);
    backoff.failed('10.0.0.1', T);
    expect(() => backoff.check('10.0.0.1', T)).toThrow(ApiError);
    now = 1_000;
    expect(() => backoff.check('10.0.0.1', T)).not.toThrow();
  });

  it('counts an IPv6 /64 as one address, as the edge limit does', () => {
    const backoff = new TokenBackoff({ maxFailures: 2 });
    backoff.failed('2001:db8::1', T);
    backoff.failed('2001:db8::2', T);
    expect(() => backoff.check('2001:db8::3', T)).toThrow(ApiError);
  });

  it('remembers at most maxAddresses addresses, forgetting the oldest', () => {
    const backoff = new TokenBackoff({ maxFailures: 1, maxAddresses: 100 });
    for (let i = 0; i < 1_000; i++) backoff.failed(`10.0.${i >> 8}.${i & 255}`, T);
    expect(backoff.size).toBe(100);
    expect(() => backoff.check('10.0.0.0', T)).not.toThrow();
    expect(() => backoff.check('10.0.3.231', T)).toThrow(ApiError);
  });

  it('checks a presented credential first: a good one passes while bad tries at it are refused', () => {
    const backoff = new TokenBackoff({ maxFailures: 2 });
    const good = () => 'granted';
    const bad = () => null;
    expect(backoff.attempt('127.0.0.1', CODE_CREDENTIAL, bad)).toBeNull();
    expect(backoff.attempt('127.0.0.1', CODE_CREDENTIAL, bad)).toBeNull();
    expect(() => backoff.attempt('127.0.0.1', CODE_CREDENTIAL, bad)).toThrow(ApiError);
    expect(backoff.attempt('127.0.0.1', CODE_CREDENTIAL, good)).toBe('granted');
  });

  it('starts the count again after a good token', () => {
    const backoff = new TokenBackoff({ maxFailures: 2 });
    backoff.failed('10.0.0.1', T);
    backoff.succeeded('10.0.0.1', T);
    backoff.failed('10.0.0.1', T);
    expect(() => backoff.check('10.0.0.1', T)).not.toThrow();
  });

  it('holds an address back only from the credential it tried: another token from it still passes', () => {
    const backoff = new TokenBackoff({ maxFailures: 2 });
    backoff.failed('127.0.0.1', tokenCredential('mgadm_guess'));
    backoff.failed('127.0.0.1', tokenCredential('mgadm_bbbbbbbbbbbb_' + 'x'.repeat(40)));
    backoff.failed('127.0.0.1', tokenCredential('mgadm_bbbbbbbbbbbb_' + 'y'.repeat(40)));
    backoff.failed('127.0.0.1', tokenCredential('garbage'));
    expect(() => backoff.check('127.0.0.1', tokenCredential('mgadm_bbbbbbbbbbbb_' + 'z'.repeat(40)))).toThrow(
      ApiError,
    );
    expect(() => backoff.check('127.0.0.1', tokenCredential('mgadm_other'))).toThrow(ApiError);
    expect(() =>
      backoff.check('127.0.0.1', tokenCredential('mgadm_cccccccccccc_' + 'x'.repeat(40))),
    ).not.toThrow();
    expect(() => backoff.check('127.0.0.1', CODE_CREDENTIAL)).not.toThrow();
  });
});
