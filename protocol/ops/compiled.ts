/**
 * The op catalogue's schemas as zod compiles them, for the two checks that run on every call
 * (PROTOCOL §6.2): the daemon's check of each `result`, the bridge's check of each `args`.
 *
 * `z.compile` generates, from the schema itself, a parser that builds the same output as the
 * runtime parser (unknown fields stripped, keys in the schema's order) and hands any value it
 * would not accept to the runtime parser, so a rejection reports exactly the issues zod always
 * reported. A schema it cannot model (a recursive one: the inventories) comes back unchanged and
 * parses as before. Generated from the schema, the check cannot drift from it; a property test
 * holds the two equal on generated valid and invalid values of every op
 * (`test/protocol/ops/compiled.test.ts`).
 *
 * Each op's schemas are compiled on the first call of that op, so start-up pays for none.
 */
import * as z from 'zod';
import { OPS, type OpName } from './index.ts';

type Side = 'args' | 'result';
const compiled: Record<Side, Map<OpName, z.ZodType>> = { args: new Map(), result: new Map() };

// The bridge package accepts any zod 4 from 4.1 on; `z.compile` came later. Without it, the
// schema parses as it always did.
const compile: (schema: z.ZodType) => z.ZodType =
  typeof z.compile === 'function' ? (schema) => z.compile(schema) : (schema) => schema;

function compiledSchema(op: OpName, side: Side): z.ZodType {
  let schema = compiled[side].get(op);
  if (schema === undefined) {
    schema = compile(OPS[op][side] as z.ZodType);
    compiled[side].set(op, schema);
  }
  return schema;
}

/** The compiled form of op N's result schema (PROTOCOL §6.2: the daemon checks every result). */
export const resultSchema = (op: OpName): z.ZodType => compiledSchema(op, 'result');

/** The compiled form of op N's argument schema (PROTOCOL §6.2: the mod checks every `args`). */
export const argsSchema = (op: OpName): z.ZodType => compiledSchema(op, 'args');
