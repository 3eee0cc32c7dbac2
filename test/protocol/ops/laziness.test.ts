import { describe, expect, it } from 'vitest';
import { lazySchemaBuilds } from '../../../protocol/lazy-schema.ts';
import { resultSchema } from '../../../protocol/ops/compiled.ts';
import { OPS } from '../../../protocol/ops/index.ts';

describe('the op catalogue builds its schemas on first use', () => {
  it('builds no schema when the catalogue is imported', () => {
    expect(Object.keys(OPS).length).toBeGreaterThan(40);
    expect(lazySchemaBuilds()).toBe(0);
  });

  it("builds an op's schemas when the op is first called, and no other op's", () => {
    const schema = resultSchema('players.violations');
    expect(schema.safeParse({ data: [], next: null }).success).toBe(true);
    const afterCall = lazySchemaBuilds();
    expect(afterCall).toBeGreaterThan(0);

    // Another op's result, read for the first time now, is built now.
    expect(OPS['packs.list'].result).toBeDefined();
    expect(lazySchemaBuilds()).toBeGreaterThan(afterCall);
  });

  it('answers the same schema on every read after the first', () => {
    const first = OPS['players.get'].args;
    const builds = lazySchemaBuilds();
    expect(OPS['players.get'].args).toBe(first);
    expect(lazySchemaBuilds()).toBe(builds);
  });
});
