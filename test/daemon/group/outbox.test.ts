/**
 * The group outbox and a sanction's identity (daemon/group/outbox.ts, sanction.ts; docs/group.md,
 * "When the database is down"): the op's answer and the mod's event for one ban are one local id,
 * whatever the daemon remembers; and what the outbox records (pending sanctions, recent
 * signatures, the event log position, applications under way) comes back when it is opened again.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GroupOutbox } from '../../../daemon/group/outbox.ts';
import { fromEvent, fromOp } from '../../../daemon/group/sanction.ts';
import { makeTempDir } from '../store/temp-dir.ts';

const PLAYER = '76561199000000042';
const ACTOR = { key_id: 'key_1', name: 'moderator', platform_id: null, social_id: null };
const CLEAN_MUTE = { muted: false, muted_at: null, duration_minutes: null, channels: [] };

function banState(bannedAt: string) {
  return {
    player: { platform_id: PLAYER },
    ban: { banned: true, reason: 'cheating', expires_at: null, banned_at: bannedAt, banned_by: null },
    mute: CLEAN_MUTE,
  };
}

describe('a sanction’s local id', () => {
  it('is the same for the op’s answer and the mod’s event of one ban, seen at any time', () => {
    const state = banState('2026-11-28T10:00:00.000Z');
    const answer = fromOp('players.ban', { ref: { platform_id: PLAYER }, actor: ACTOR }, state, new Date());
    const event = fromEvent('player.banned', state, new Date(Date.now() + 3_600_000));
    expect(answer?.sanction.local_id).toBe(event?.sanction.local_id);
    const later = fromEvent('player.banned', banState('2026-11-28T11:00:00.000Z'), new Date());
    expect(later?.sanction.local_id).not.toBe(answer?.sanction.local_id);
  });

  it('is drawn afresh for each unban, which has no time of its own', () => {
    const state = {
      player: { platform_id: PLAYER },
      ban: { banned: false },
      unbanned_by: null,
      mute: CLEAN_MUTE,
    };
    const [first, second] = [
      fromEvent('player.unbanned', state, new Date()),
      fromEvent('player.unbanned', state, new Date()),
    ];
    expect(first?.signature).toBe(second?.signature);
    expect(first?.sanction.local_id).not.toBe(second?.sanction.local_id);
  });
});

describe('the group outbox', () => {
  it('brings back what it recorded when it is opened again, in a 0600 file', async () => {
    const dir = await makeTempDir();
    const outbox = await GroupOutbox.open(dir);
    expect(outbox.readPosition).toBeNull();
    const seen = fromEvent('player.banned', banState(new Date().toISOString()), new Date());
    // Banned a minute before the other (within SEEN_KEPT_MS): another ban, so another signature.
    // One millisecond apart, the clock could tick between the two lines and make them one change.
    const published = fromEvent(
      'player.banned',
      banState(new Date(Date.now() - 60_000).toISOString()),
      new Date(),
    );
    if (seen === null || published === null) throw new Error('a ban event is a sanction');
    expect(published.signature).not.toBe(seen.signature);
    await outbox.add({ ...published.sanction, signature: published.signature });
    await outbox.done(published.sanction.local_id);
    await outbox.add({ ...seen.sanction, signature: seen.signature });
    await outbox.read(17);
    await outbox.applying(`bans ${PLAYER}`);
    await outbox.applying('mutes 76561199000000043');
    await outbox.applied('mutes 76561199000000043', null);
    await outbox.close();

    const again = await GroupOutbox.open(dir);
    expect(again.first()?.local_id).toBe(seen.sanction.local_id);
    expect(again.size).toBe(1);
    expect(again.readPosition).toBe(17);
    expect([...again.unsettled]).toEqual([`bans ${PLAYER}`]);
    expect(again.seen.map((note) => note.signature).sort()).toEqual(
      [published.signature, seen.signature].sort(),
    );
    await again.settle();
    await again.close();
    // Opening rewrote it without the published sanction's lines, its signature kept for a while.
    const text = await readFile(join(dir, 'group-outbox.jsonl'), 'utf8');
    expect(text).not.toContain(`"done"`);
    expect((await stat(join(dir, 'group-outbox.jsonl'))).mode & 0o777).toBe(0o600);
    const third = await GroupOutbox.open(dir);
    expect([...third.unsettled]).toEqual([]);
    expect(third.seen).toHaveLength(2);
    await third.close();
  });
});
