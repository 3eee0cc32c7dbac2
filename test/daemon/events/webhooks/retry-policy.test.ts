import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  giveUpReason,
  honouredWait,
} from '../../../../daemon/events/webhooks/retry-policy.ts';

const policy = DEFAULT_RETRY_POLICY;

describe('webhook retry policy', () => {
  it('draws each wait from zero up to a doubling ceiling capped at the maximum (full jitter)', () => {
    expect(backoffDelay(policy, 1, () => 0.999_999)).toBe(4_999);
    expect(backoffDelay(policy, 3, () => 0.5)).toBe(10_000);
    expect(backoffDelay(policy, 30, () => 0.999_999)).toBe(3_599_996);
    expect(backoffDelay(policy, 5, () => 0)).toBe(0);
  });

  it('keeps retrying for the whole 24 h window and gives up after it', () => {
    const start = new Date('2030-01-01T00:00:00Z');
    const failure = { status: 500, runStartedAt: start, attempts: 40 };
    expect(giveUpReason(policy, failure, new Date(start.getTime() + 23.9 * 3_600_000))).toBeNull();
    expect(giveUpReason(policy, failure, new Date(start.getTime() + 24 * 3_600_000))).toBe(
      'one message failed 40 times over 24.0 h',
    );
  });

  it('gives up at once on 410 Gone', () => {
    const now = new Date();
    expect(giveUpReason(policy, { status: 410, runStartedAt: now, attempts: 1 }, now)).toBe(
      'the receiver answered 410 Gone',
    );
  });

  it('honours a requested wait up to the maximum delay and ignores nonsense', () => {
    expect(honouredWait(policy, 1_500.2)).toBe(1_501);
    expect(honouredWait(policy, 10 * 3_600_000)).toBe(3_600_000);
    expect(honouredWait(policy, -1)).toBeUndefined();
    expect(honouredWait(policy, Number.NaN)).toBeUndefined();
    expect(honouredWait(policy, undefined)).toBeUndefined();
  });
});
