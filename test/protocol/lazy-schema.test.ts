import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { lazyFields, lazySchema, lazySchemaBuilds, schemaField } from '../../protocol/lazy-schema.ts';

describe('lazySchema', () => {
  it('builds on the first call only and returns that schema after', () => {
    let calls = 0;
    const thunk = lazySchema(() => {
      calls += 1;
      return z.string();
    });
    expect(calls).toBe(0);
    const builds = lazySchemaBuilds();
    const first = thunk();
    expect(thunk()).toBe(first);
    expect(calls).toBe(1);
    expect(lazySchemaBuilds()).toBe(builds + 1);
  });
});

describe('schemaField', () => {
  it('turns a thunk into an enumerable getter that builds on first read', () => {
    let calls = 0;
    const target: Record<string, unknown> = {};
    schemaField(target, 'query', () => {
      calls += 1;
      return z.object({ a: z.string() });
    });
    expect(Object.keys(target)).toEqual(['query']);
    expect(calls).toBe(0);
    expect(target['query']).toBe(target['query']);
    expect(calls).toBe(1);
  });

  it('keeps a built schema as a plain property and defines nothing for an absent one', () => {
    const schema = z.number();
    const target: Record<string, unknown> = {};
    schemaField(target, 'body', schema);
    schemaField(target, 'params', undefined);
    expect(Object.getOwnPropertyDescriptor(target, 'body')?.value).toBe(schema);
    expect('params' in target).toBe(false);
  });
});

describe('lazyFields', () => {
  it('builds each entry of a table on its own first read', () => {
    const built: string[] = [];
    const table = lazyFields<'a' | 'b', z.ZodType>({
      a: () => (built.push('a'), z.string()),
      b: () => (built.push('b'), z.number()),
    });
    expect(Object.keys(table)).toEqual(['a', 'b']);
    expect(built).toEqual([]);
    expect(table.b.safeParse(1).success).toBe(true);
    expect(built).toEqual(['b']);
  });
});
