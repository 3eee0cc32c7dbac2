import { describe, expect, it } from 'vitest';
import { AppliedOps, createWorld } from '../../../mod-sim/world/index.ts';

describe('AppliedOps', () => {
  it('remembers the result of each op id', () => {
    const ops = new AppliedOps();
    ops.record('a', 'players.ban', { n: 1 });
    expect(ops.get('a')).toEqual({ op: 'players.ban', result: { n: 1 } });
    expect(ops.get('b')).toBeUndefined();
  });

  it('keeps a snapshot that neither later edits nor readers can change', () => {
    const ops = new AppliedOps();
    const result = { player: { social_id: 'x' as string | null } };
    ops.record('a', 'players.link', result);
    result.player.social_id = null;
    const read = ops.get('a')!.result as typeof result;
    expect(read.player.social_id).toBe('x');
    read.player.social_id = 'changed';
    expect((ops.get('a')!.result as typeof result).player.social_id).toBe('x');
  });

  it('forgets the oldest op id past its capacity', () => {
    const ops = new AppliedOps(3);
    for (const id of ['a', 'b', 'c', 'd']) ops.record(id, 'players.ban', id);
    expect(ops.size).toBe(3);
    expect(ops.get('a')).toBeUndefined();
    expect(ops.get('d')?.result).toBe('d');
  });

  it('holds 10,000 op ids by default, one memory per world', () => {
    const world = createWorld({ players: 5 });
    expect(world.appliedOps.capacity).toBe(10_000);
    expect(createWorld({ players: 5 }).appliedOps).not.toBe(world.appliedOps);
  });

  it('rejects a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN])
      expect(() => new AppliedOps(capacity)).toThrow(RangeError);
  });
});
