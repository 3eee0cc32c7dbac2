/**
 * Which sightings of a moderation change are new (docs/group.md, "What is shared"). One change on this
 * server is usually seen twice: the op's answer (a /v1 or admin game route) and then the mod's
 * event for it, in either order; and a change this daemon applied because of the group is seen
 * once, as the mod's event, and must not be published back. So:
 *
 * - `remember` notes a change by its signature (action, player, when the game set it) for a few
 *   minutes; a second sighting with the same signature is not new. An unban or unmute has no time
 *   of its own: its note lasts until the player's next ban or mute, or the same few minutes.
 * - `restore` brings back the notes of the last few minutes before a restart (the outbox keeps
 *   them), so an op answered before a kill -9 and its event read after it are still one change.
 * - `applying` marks a player's bans or mutes as being applied from the group until the game has
 *   answered; an event for them meanwhile is the group's own (its answer then remembers it).
 *
 * The cost: an unban (or unmute) made on this server within EVENT_GRACE_MS of the same player's
 * unban coming from the group, with a ban between the two, is taken for the group's own and not
 * published.
 */
import { kindOf, type SanctionAction } from './sanction.ts';

/** How long a sighting is remembered: far above the gap between an op's answer and its event. */
export const REMEMBER_MS = 5 * 60_000;

/** How often run-out notes are dropped once there are many. */
const PRUNE_MS = 10_000;

/** How long after a change its mod event may still arrive (the event log's fsync, the mod's batching). */
export const EVENT_GRACE_MS = 30_000;

const OPPOSITE: Readonly<Record<SanctionAction, SanctionAction>> = {
  ban: 'unban',
  unban: 'ban',
  mute: 'unmute',
  unmute: 'mute',
};

export class GroupCapture {
  readonly #seen = new Map<string, { signature: string; until: number; at: number }>();
  readonly #applying = new Map<string, number>();
  readonly #now: () => number;
  #prunedAt = -Infinity;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** True when this change was not seen before; it is remembered either way. */
  remember(action: SanctionAction, platformId: string, signature: string): boolean {
    const now = this.#now();
    this.#prune(now);
    const key = `${action} ${platformId}`;
    const known = this.#seen.get(key);
    const isNew = known === undefined || known.signature !== signature || known.until < now;
    this.#seen.set(key, { signature, until: now + REMEMBER_MS, at: now });
    // A new ban ends what an unban's note said (and the other way round): the next unban is
    // news. Not a note of the last seconds: the mod's event for that change may still be on
    // its way behind this one, and must still be recognised.
    const opposite = `${OPPOSITE[action]} ${platformId}`;
    const before = this.#seen.get(opposite);
    if (isNew && before !== undefined && before.at < now - EVENT_GRACE_MS) this.#seen.delete(opposite);
    return isNew;
  }

  /** Notes from before a restart (outbox.ts): each lasts REMEMBER_MS from when it was made. */
  restore(
    notes: readonly { action: SanctionAction; platform_id: string; signature: string; at: number }[],
  ): void {
    for (const { action, platform_id: platformId, signature, at } of notes)
      this.#seen.set(`${action} ${platformId}`, { signature, until: at + REMEMBER_MS, at });
  }

  /** True while the group's application of this player's bans (or mutes) waits for the game. */
  isApplying(action: SanctionAction, platformId: string): boolean {
    return (this.#applying.get(`${kindOf(action)} ${platformId}`) ?? 0) > 0;
  }

  /** Marks the start of an application from the group; the returned function marks its end. */
  applying(action: SanctionAction, platformId: string): () => void {
    const key = `${kindOf(action)} ${platformId}`;
    this.#applying.set(key, (this.#applying.get(key) ?? 0) + 1);
    return () => {
      const left = (this.#applying.get(key) ?? 1) - 1;
      if (left === 0) this.#applying.delete(key);
      else this.#applying.set(key, left);
    };
  }

  /**
   * Drops run-out notes (remember() reads `until`, so one kept longer changes nothing): at most
   * every PRUNE_MS, as a catch-up remembers thousands of notes a minute and each pass reads all.
   */
  #prune(now: number): void {
    if (this.#seen.size < 1_000 || now - this.#prunedAt < PRUNE_MS) return;
    this.#prunedAt = now;
    for (const [key, { until }] of this.#seen) if (until < now) this.#seen.delete(key);
  }
}
