/**
 * The NOTIFY payload that carries a sanction (daemon/group/notice.ts): what a receiver reads back
 * is the row the log would give it, a row too big for PostgreSQL's payload goes out empty, and a
 * row announced before a later one of the same player and kind is marked superseded.
 */
import { describe, expect, it } from 'vitest';
import { fromNotice, markSuperseded, toNotice } from '../../../daemon/group/notice.ts';
import type { Sanction } from '../../../daemon/group/sanction.ts';

const SERVER = { id: 'server-a', name: 'EU 1' };

function sanction(overrides: Partial<Sanction> = {}): Sanction {
  return {
    local_id: 'local-1',
    action: 'ban',
    platform_id: '76561198000000001',
    actor: { name: 'Mod', key_id: 'k1', platform_id: null, social_id: null, source: 'api' },
    reason: 'cheating',
    expires_at: '2026-11-29T12:00:00.000Z',
    channels: null,
    created_at: '2026-11-28T12:00:00.000Z',
    ...overrides,
  };
}

describe('NOTIFY payloads', () => {
  it('reads back the row as published, with the row before it', () => {
    const row = fromNotice(toNotice({ id: '42', previous: '41' }, SERVER, sanction()));
    expect(row).toEqual({
      id: '42',
      previous: '41',
      action: 'ban',
      kind: 'bans',
      platform_id: '76561198000000001',
      origin_server: 'server-a',
      origin_name: 'EU 1',
      actor: { name: 'Mod', key_id: 'k1', platform_id: null, social_id: null, source: 'api' },
      reason: 'cheating',
      expires_at: new Date('2026-11-29T12:00:00.000Z'),
      channels: null,
      created_at: new Date('2026-11-28T12:00:00.000Z'),
      superseded: false,
    });
  });

  it('gives a mute its kind and channels, and an unban no expiry', () => {
    const mute = fromNotice(
      toNotice({ id: '2', previous: '1' }, SERVER, sanction({ action: 'mute', channels: ['Global'] })),
    );
    expect(mute).toMatchObject({ kind: 'mutes', channels: ['Global'] });
    const unban = fromNotice(
      toNotice(
        { id: '3', previous: '2' },
        SERVER,
        sanction({ action: 'unban', reason: null, expires_at: null }),
      ),
    );
    expect(unban).toMatchObject({ kind: 'bans', expires_at: null, reason: null });
  });

  it('announces a row too big for a payload empty, so receivers read the log', () => {
    const payload = toNotice({ id: '7', previous: '6' }, SERVER, sanction({ reason: 'x'.repeat(8_000) }));
    expect(payload).toBe('');
    expect(fromNotice(payload)).toBeNull();
  });

  it('takes no row from an empty, malformed or unknown payload', () => {
    expect(fromNotice('')).toBeNull();
    expect(fromNotice('{')).toBeNull();
    expect(
      fromNotice(JSON.stringify({ id: '1', previous: '0', action: 'kick', created_at: 'x' })),
    ).toBeNull();
    expect(fromNotice(JSON.stringify({ id: 1, previous: '0', action: 'ban', created_at: 'x' }))).toBeNull();
  });

  it('marks a row superseded by a later one of the same player and kind only', () => {
    const announced = [
      toNotice({ id: '1', previous: '0' }, SERVER, sanction()),
      toNotice({ id: '2', previous: '1' }, SERVER, sanction({ action: 'mute', channels: ['Global'] })),
      toNotice(
        { id: '3', previous: '2' },
        SERVER,
        sanction({ action: 'unban', reason: null, expires_at: null }),
      ),
    ].map((payload) => fromNotice(payload)!);
    expect(markSuperseded(announced).map((row) => row.superseded)).toEqual([true, false, false]);
  });
});
