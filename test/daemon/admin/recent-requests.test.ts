import { describe, expect, it } from 'vitest';
import { RECENT_MINUTES, RecentRequests } from '../../../daemon/admin/recent-requests.ts';

describe('RecentRequests', () => {
  it('counts answers by status class in the minute they were answered', () => {
    let now = Date.UTC(2030, 0, 1, 12, 0, 30);
    const requests = new RecentRequests(() => now);
    for (const status of [200, 201, 304, 404, 429, 503]) requests.count(status);
    now += 60_000;
    requests.count(200);
    const minutes = requests.perMinute();
    expect(minutes).toHaveLength(RECENT_MINUTES);
    expect(minutes.at(-2)).toEqual({
      minute: '2030-01-01T12:00:00.000Z',
      '2xx': 2,
      '3xx': 1,
      '4xx': 2,
      '5xx': 1,
    });
    expect(minutes.at(-1)).toMatchObject({ minute: '2030-01-01T12:01:00.000Z', '2xx': 1 });
    expect(requests.totals()).toEqual({ '2xx': 3, '3xx': 1, '4xx': 2, '5xx': 1 });
  });

  it('forgets what is older than the window, and a reused bucket starts at zero', () => {
    let now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const requests = new RecentRequests(() => now);
    requests.count(500);
    now += RECENT_MINUTES * 60_000;
    expect(requests.totals()['5xx']).toBe(0);
    requests.count(200);
    expect(requests.totals()).toEqual({ '2xx': 1, '3xx': 0, '4xx': 0, '5xx': 0 });
  });

  it('does not count a client that left (499) or an informational status', () => {
    const requests = new RecentRequests();
    requests.count(499);
    requests.count(101);
    expect(requests.totals()).toEqual({ '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 });
  });
});
