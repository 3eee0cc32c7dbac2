/**
 * failuresPage (daemon/group/group-failures.ts): the refusals kept, newest first, paged by the
 * sanction id of the previous page's last, so a refusal added between two pages shifts nothing
 * and one dropped by the 1,000 cap ends the listing.
 */
import { describe, expect, it } from 'vitest';
import { failuresPage, type FailedSanction } from '../../../daemon/group/group-failures.ts';

const refusal = (id: string): FailedSanction => ({
  id,
  action: 'ban',
  platform_id: `7656119900000000${id}`,
  origin_server: 'srv_a',
  error: 'refused',
  at: '2026-01-01T00:00:00.000Z',
});

const ids = (page: { data: FailedSanction[] }) => page.data.map((row) => row.id);

describe('failuresPage', () => {
  const kept = ['1', '2', '3', '4', '5'].map(refusal);

  it('pages newest first and says where the next page starts', () => {
    const first = failuresPage(kept, null, 2);
    expect([ids(first), first.next]).toEqual([['5', '4'], '4']);
    const second = failuresPage(kept, '4', 2);
    expect([ids(second), second.next]).toEqual([['3', '2'], '2']);
    const last = failuresPage(kept, '2', 2);
    expect([ids(last), last.next]).toEqual([['1'], null]);
  });

  it('continues after the same refusal when a newer one came between two pages', () => {
    const first = failuresPage(kept, null, 2);
    const grown = [...kept, refusal('6')];
    expect(ids(failuresPage(grown, first.next, 2))).toEqual(['3', '2']);
  });

  it('ends the listing when the cursor names a refusal no longer kept', () => {
    expect(failuresPage(kept.slice(3), '2', 2)).toEqual({ data: [], next: null });
  });

  it('answers an empty page for none kept', () => {
    expect(failuresPage([], null, 50)).toEqual({ data: [], next: null });
  });
});
