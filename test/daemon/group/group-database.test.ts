import { describe, expect, it } from 'vitest';
import { BACKOFF_MS, logsFailure, nextBackoff, QUIET_LOG_MS } from '../../../daemon/group/group-database.ts';

describe('the group database reconnection back-off', () => {
  it('doubles from 1 s and stays at 5 s, so a returning database is tried again within 5 s', () => {
    const waits = [BACKOFF_MS.first];
    for (let attempt = 0; attempt < 8; attempt++) waits.push(nextBackoff(waits.at(-1) ?? 0));
    expect(waits).toEqual([1_000, 2_000, 4_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000]);
  });

  it('logs every failure while the wait grows, then one a minute at the cap', () => {
    expect([1_000, 2_000, 4_000].map((wait) => logsFailure(wait, 0))).toEqual([true, true, true]);
    expect(logsFailure(BACKOFF_MS.max, BACKOFF_MS.max)).toBe(false);
    expect(logsFailure(BACKOFF_MS.max, QUIET_LOG_MS - 1)).toBe(false);
    expect(logsFailure(BACKOFF_MS.max, QUIET_LOG_MS)).toBe(true);
  });
});
