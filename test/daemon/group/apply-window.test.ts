/**
 * The receiver's window (daemon/group/apply-window.ts; docs/group.md, "Catching up"): rows of
 * different players overlap up to the window's size, one player's rows go in order, the notes of
 * a batch are written once, and a stop leaves the cursor before the first row not done.
 */
import { describe, expect, it } from 'vitest';
import { applyWindow, type WindowItem } from '../../../daemon/group/apply-window.ts';

/** Rows whose game answers when told to (`answer(index, ok)`), recording the order it was told in. */
function game(keys: readonly (string | null)[]) {
  const told: number[] = [];
  const answers = new Map<number, (ok: boolean) => void>();
  const items = keys.map((key, index): WindowItem | null =>
    key === null
      ? null
      : {
          key,
          start: () =>
            new Promise<boolean>((resolve) => {
              told.push(index);
              answers.set(index, resolve);
            }),
        },
  );
  const answer = (index: number, ok = true) => answers.get(index)?.(ok);
  return { items, told, answer };
}

/** Lets the window run until it waits on the game again. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the receiver’s window', () => {
  it('has rows of different players in the game at once, up to its size, their notes written once', async () => {
    const { items, told, answer } = game(Array.from({ length: 10 }, (_, n) => `bans p${n}`));
    const notes: (readonly string[])[] = [];
    const result = applyWindow(items, 4, async (keys) => void notes.push(keys));
    await settle();
    expect(told).toEqual([0, 1, 2, 3]);
    expect(notes).toEqual([['bans p0', 'bans p1', 'bans p2', 'bans p3']]);
    answer(1);
    answer(2);
    await settle();
    expect(told).toEqual([0, 1, 2, 3, 4, 5]);
    expect(notes[1]).toEqual(['bans p4', 'bans p5']);
    for (let index = 0; index < 10; index++) {
      answer(index);
      await settle();
    }
    expect(await result).toMatchObject({ prefix: 10, peak: 4 });
  });

  it('tells the game one player’s rows one after the other, in order', async () => {
    const { items, told, answer } = game(['bans a', 'bans b', 'bans a', 'mutes a', 'bans c']);
    const result = applyWindow(items, 8, async () => undefined);
    await settle();
    // Row 2 waits for row 0 (same player and kind), and holds back the rows after it.
    expect(told).toEqual([0, 1]);
    answer(1);
    await settle();
    expect(told).toEqual([0, 1]);
    answer(0);
    await settle();
    expect(told).toEqual([0, 1, 2, 3, 4]);
    for (const index of [4, 3, 2]) answer(index);
    expect((await result).prefix).toBe(5);
  });

  it('stops at a row the game could not take, the cursor before it, rows done after it known', async () => {
    const { items, told, answer } = game(['bans a', null, 'bans b', 'bans c', 'bans d', 'bans e']);
    const result = applyWindow(items, 3, async () => undefined);
    await settle();
    expect(told).toEqual([0, 2, 3]);
    answer(0);
    answer(3);
    answer(2, false);
    await settle();
    // Row 4 may have started when row 0's slot freed; row 5 never starts after the stop.
    for (const index of told) answer(index);
    const { prefix, done } = await result;
    expect(told).not.toContain(5);
    expect(prefix).toBe(2);
    expect(done.slice(0, 4)).toEqual([true, true, false, true]);
  });

  it('counts rows that need nothing as done', async () => {
    expect(await applyWindow([null, null], 4, async () => undefined)).toEqual({
      prefix: 2,
      done: [true, true],
      peak: 0,
    });
  });
});
