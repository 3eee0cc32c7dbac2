import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../daemon/http/api-error.ts';
import { StreamAccess, type WatchedStream } from '../../../daemon/http/stream-access.ts';
import type { Snapshot } from '../../../daemon/store/data-dir.ts';

/** A stream whose access lapses at `lapsesAt` (never when null), or at once when `refused()`. */
function fakeStream(lapsesAt: number | null, refused: () => boolean = () => false) {
  const revoked: ApiError[] = [];
  const stream: WatchedStream = {
    recheck: (_snapshot, now) => {
      if (refused() || (lapsesAt !== null && now.getTime() >= lapsesAt)) throw new ApiError('unauthorized');
      return lapsesAt;
    },
    revoke: (error) => revoked.push(error),
  };
  return { stream, revoked };
}

describe('StreamAccess', () => {
  let change: () => void = () => undefined;
  let access: StreamAccess;
  beforeEach(() => {
    vi.useFakeTimers();
    access = new StreamAccess({
      snapshot: () => ({}) as Snapshot,
      now: () => Date.now(),
      onChange: (listener) => (change = listener),
    });
  });
  afterEach(() => vi.useRealTimers());

  it('holds no timer while no stream is open, nor for streams without an end date', () => {
    expect(vi.getTimerCount()).toBe(0);
    const unwatch = access.watch(fakeStream(null).stream);
    expect(vi.getTimerCount()).toBe(0);
    unwatch();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds one timer for the earliest end date and drops it when the last stream ends', () => {
    const later = access.watch(fakeStream(Date.now() + 60_000).stream);
    const sooner = access.watch(fakeStream(Date.now() + 5_000).stream);
    expect(vi.getTimerCount()).toBe(1);
    sooner();
    later();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('revokes a stream when its end date passes, and only that one', () => {
    const expiring = fakeStream(Date.now() + 5_000);
    const lasting = fakeStream(Date.now() + 60_000);
    access.watch(expiring.stream);
    access.watch(lasting.stream);
    vi.advanceTimersByTime(4_999);
    expect(expiring.revoked).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expiring.revoked.map((error) => error.code)).toEqual(['unauthorized']);
    expect(lasting.revoked).toEqual([]);
    expect(access.size).toBe(1);
    vi.advanceTimersByTime(55_000);
    expect(lasting.revoked).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-checks every open stream on a data dir change', () => {
    let revokedNow = false;
    const watched = fakeStream(null, () => revokedNow);
    access.watch(watched.stream);
    change();
    expect(watched.revoked).toEqual([]);
    revokedNow = true;
    change();
    expect(watched.revoked.map((error) => error.code)).toEqual(['unauthorized']);
    change();
    expect(watched.revoked).toHaveLength(1);
  });
});
