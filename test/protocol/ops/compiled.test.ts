import fc from 'fast-check';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { argsSchema, resultSchema } from '../../../protocol/ops/compiled.ts';
import { OPS, type OpName } from '../../../protocol/ops/index.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the generator reads zod's schema definitions */

const OP_NAMES = Object.keys(OPS) as OpName[];
/** The recursive schemas (an inventory item holds items): zod's compiler leaves them to the runtime. */
const RECURSIVE = new Set<OpName>(['players.inventory', 'vehicles.inventory', 'containers.inventory']);

type Arb = fc.Arbitrary<unknown>;

/** Extra keys for objects: what a newer mod might add, and the keys a JavaScript object treats specially. */
const extraKey = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('constructor', 'toString', '0'));
const oddValue: Arb = fc.oneof(
  fc.anything({ maxDepth: 1 }),
  fc.constantFrom(undefined, null, NaN, Infinity, -Infinity, -0, 1.5, 2 ** 53, -(2 ** 53), '', [], {}),
  fc.uint8Array({ maxLength: 2 }),
);

function numberArb(schema: any): Arb {
  const checks = [schema, ...(schema._zod.def.checks ?? [])].map((check) => check._zod.def);
  let min = -1e6;
  let max = 1e6;
  let integer = false;
  for (const def of checks) {
    if (def.check === 'number_format') integer = def.format.includes('int');
    if (def.check === 'greater_than') min = def.inclusive ? def.value : def.value + 1;
    if (def.check === 'less_than') max = def.inclusive ? def.value : def.value - 1;
  }
  const around = fc.constantFrom(min, max, min - 1, max + 1, 0, -0, 0.5);
  return integer
    ? fc.oneof(fc.integer({ min, max }), around)
    : fc.oneof(fc.double({ min, max, noNaN: true }), around);
}

function stringArb(schema: any): Arb {
  const own = schema._zod.traits.has('$ZodCheck') ? [schema] : [];
  const patterns = [...own, ...(schema._zod.def.checks ?? [])]
    .map((check) => check._zod.def.pattern as RegExp | undefined)
    .filter((pattern): pattern is RegExp => pattern !== undefined);
  return patterns.length === 0 ? fc.string({ maxLength: 8 }) : fc.stringMatching(patterns[0] as RegExp);
}

/** Valid values of `schema`, with unknown keys added; `depth` bounds the recursive ones. */
function arbitraryFor(schema: any, depth = 0): Arb {
  const def = schema._zod.def;
  switch (def.type) {
    case 'object': {
      const keys = Object.keys(def.shape);
      const shape = Object.fromEntries(keys.map((key) => [key, arbitraryFor(def.shape[key], depth + 1)]));
      const required = keys.filter((key) => def.shape[key]._zod.optin === undefined);
      const known = fc.record(shape, { requiredKeys: required });
      const extras = fc.dictionary(extraKey, oddValue, { maxKeys: 2 });
      return fc.tuple(extras, known).map(([extra, value]) => ({ ...extra, ...value }));
    }
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(arbitraryFor(def.element, depth + 1), { maxLength: 3 });
    case 'record':
      return fc.dictionary(fc.string({ maxLength: 6 }), arbitraryFor(def.valueType, depth + 1), {
        maxKeys: 3,
      });
    case 'union':
      return fc.oneof(...def.options.map((option: any) => arbitraryFor(option, depth)));
    case 'nullable':
      return fc.option(arbitraryFor(def.innerType, depth), { nil: null });
    case 'optional':
      return fc.option(arbitraryFor(def.innerType, depth), { nil: undefined });
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries));
    case 'literal':
      return fc.constantFrom(...def.values);
    case 'string':
      return stringArb(schema);
    case 'number':
      return numberArb(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      throw new Error(`no generator for a zod ${def.type}`);
  }
}

/** Every node of a value with the path to it, to break one of them. */
function paths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const found = [at];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...paths(item, [...at, i])));
  else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const key of Object.keys(value)) found.push(...paths((value as any)[key], [...at, key]));
  }
  return found;
}

type Break =
  { kind: 'replace'; next: unknown } | { kind: 'remove' } | { kind: 'retype'; at: number; char: string };

/** A copy of `value` with the node at `path` replaced, deleted, or (a string) one character changed. */
function broken(value: unknown, path: Array<string | number>, how: Break): unknown {
  if (path.length === 0) {
    if (how.kind === 'retype' && typeof value === 'string') {
      const at = how.at % (value.length + 1);
      return value.slice(0, at) + how.char + value.slice(at + 1);
    }
    return how.kind === 'replace' ? how.next : undefined;
  }
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  if (rest.length === 0 && how.kind === 'remove') {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete copy[head];
  } else copy[head] = broken(copy[head], rest, how);
  return copy;
}

const breaks: fc.Arbitrary<Break> = fc.oneof(
  oddValue.map((next) => ({ kind: 'replace', next }) as const),
  fc.constant({ kind: 'remove' } as const),
  fc
    .tuple(fc.nat(), fc.constantFrom('x', ' ', '9', 'Z', '', '\n'))
    .map(([at, char]) => ({ kind: 'retype', at, char }) as const),
);

/** Valid values, and each broken at one node: a wrong type, an odd number, a missing key, a near miss. */
function candidates(schema: z.ZodType): Arb {
  const valid = arbitraryFor(schema);
  const invalid = fc.tuple(valid, fc.nat(), breaks).map(([value, pick, how]) => {
    const all = paths(value);
    return broken(value, all[pick % all.length] as Array<string | number>, how);
  });
  return fc.oneof(valid, invalid);
}

/** Key order, undefined, -0 and NaN all show: the output is compared as the API would write it. */
const shown = (value: unknown) => inspect(value, { depth: null, sorted: false, maxArrayLength: null });

function expectSameParse(runtime: z.ZodType, compiled: z.ZodType, input: unknown): boolean {
  const expected = runtime.safeParse(input);
  const actual = compiled.safeParse(input);
  expect(actual.success).toBe(expected.success);
  if (expected.success && actual.success) {
    expect(shown(actual.data)).toBe(shown(expected.data));
    if (input !== null && typeof input === 'object') expect(actual.data).not.toBe(input);
  } else {
    expect(actual.error?.issues).toStrictEqual(expected.error?.issues);
  }
  return expected.success;
}

describe('compiled op schemas', () => {
  it('compile every op result and args schema but the recursive inventories', () => {
    for (const op of OP_NAMES) {
      const compile = () => z.compile(OPS[op].result as z.ZodType, { strict: true });
      if (RECURSIVE.has(op)) expect(compile).toThrow(/reference cycle/);
      else expect(compile).not.toThrow();
      expect(() => z.compile(OPS[op].args as z.ZodType, { strict: true })).not.toThrow();
    }
  });

  it.each(OP_NAMES)('accept, reject and output exactly what zod does for the %s result', (op) => {
    const runtime = OPS[op].result as z.ZodType;
    const compiled = resultSchema(op);
    const seen = { accepted: 0, rejected: 0 };
    fc.assert(
      fc.property(candidates(runtime), (input) => {
        if (expectSameParse(runtime, compiled, input)) seen.accepted += 1;
        else seen.rejected += 1;
      }),
      { numRuns: 150 },
    );
    // the generator reaches both paths
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.rejected).toBeGreaterThan(0);
  });

  it.each(OP_NAMES)('accept, reject and output exactly what zod does for the %s args', (op) => {
    const runtime = OPS[op].args as z.ZodType;
    const compiled = argsSchema(op);
    fc.assert(
      fc.property(candidates(runtime), (input) => {
        expectSameParse(runtime, compiled, input);
      }),
      { numRuns: 60 },
    );
  });

  it('reject anything that is not the result shape with the issues zod reports', () => {
    const compiled = resultSchema('players.violations');
    const runtime = OPS['players.violations'].result as z.ZodType;
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expectSameParse(runtime, compiled, input);
      }),
    );
  });

  it('strip a field the mod added and keep the schema order of the rest', () => {
    const row = {
      metadata: { squad_ban: false },
      duration_sec: 60,
      expires_at: null,
      applied_at: '2026-11-20T10:15:00.000Z',
      issued_by: { name: 'Bob', social_id: null, platform_id: '76561190000000001', rank: 3 },
      reason: 'r',
      source: 'api',
      action: 'tempban',
      type: 'ban',
      id: 1,
      shiny_new_field: true,
    };
    const parsed = resultSchema('players.violations').parse({ next: null, data: [row], extra: 1 });
    expect(Object.keys(parsed as object)).toEqual(['data', 'next']);
    const [first] = (parsed as { data: Array<Record<string, unknown>> }).data;
    expect(Object.keys(first ?? {})).toEqual(Object.keys(Violation()));
    expect(Object.keys((first?.['issued_by'] as object) ?? {})).toEqual(['platform_id', 'social_id', 'name']);
  });
});

/** The violation schema's own key order. */
function Violation(): Record<string, unknown> {
  const page = OPS['players.violations'].result as any;
  return page._zod.def.shape.data._zod.def.element._zod.def.shape;
}
