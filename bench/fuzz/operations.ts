/**
 * The /v1 operations the fuzzer sends valid requests to, read from the daemon's own OpenAPI
 * document (generated from the route table, daemon/routes/index.ts), and a seeded sampler of
 * values that satisfy their JSON Schemas: path and query parameters, headers, bodies. Values
 * for a player or squad come from the ids the simulated world really holds, so the requests
 * reach the mod instead of stopping at a 404.
 */
import type { Rng } from '../../mod-sim/world/rng.ts';
import { sampleRegex } from './regex-sample.ts';

type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** As in the document: `/v1/players/{ref}`. */
  path: string;
  parameters: Parameter[];
  body: Schema | null;
  /** An SSE stream: answered with headers, then never ends. */
  streams: boolean;
}

export interface Document {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: Record<string, Record<string, unknown>>;
}

/** Known ids of the world, by kind. */
export interface IdPool {
  players: string[];
  squads: string[];
}

export function operationsOf(doc: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters = ((op['parameters'] as Schema[] | undefined) ?? []).map(
        (p) => resolve(doc, p) as unknown as Parameter,
      );
      const content = (op['requestBody'] as { content?: Record<string, { schema: Schema }> } | undefined)
        ?.content;
      const success = Object.values((op['responses'] as Record<string, Schema>) ?? {})[0];
      const streams = JSON.stringify(resolve(doc, success ?? {})).includes('text/event-stream');
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters,
        body: content?.['application/json']?.schema ?? null,
        streams,
      });
    }
  }
  return operations;
}

/** Follows a local `$ref` (`#/components/...`). */
export function resolve(doc: Document, node: Schema): Schema {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  let target: unknown = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Record<string, unknown>)[part];
  return resolve(doc, target as Schema);
}

/** A value for `schema`, valid unless the schema asks for something this sampler cannot make. */
export function sample(doc: Document, schema: Schema, rng: Rng, ids: IdPool, name = '', depth = 0): unknown {
  const s = resolve(doc, schema);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key] as Schema[] | undefined;
    if (options) return sample(doc, rng.pick(options), rng, ids, name, depth);
  }
  if (Array.isArray(s['allOf']))
    return sample(doc, (s['allOf'] as Schema[])[0] as Schema, rng, ids, name, depth);
  if ('const' in s) return s['const'];
  if (Array.isArray(s['enum'])) return rng.pick(s['enum'] as unknown[]);
  const type = Array.isArray(s['type']) ? rng.pick(s['type'] as string[]) : s['type'];
  switch (type) {
    case 'object':
      return sampleObject(doc, s, rng, ids, depth);
    case 'array': {
      const min = Number(s['minItems'] ?? 0);
      const max = Math.min(Number(s['maxItems'] ?? min + 3), min + 3);
      const items = (s['items'] as Schema | undefined) ?? {};
      return Array.from({ length: rng.int(min, max) }, () => sample(doc, items, rng, ids, name, depth + 1));
    }
    case 'integer':
    case 'number':
      return sampleNumber(s, rng, type === 'integer');
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    default:
      return sampleString(s, rng, ids, name);
  }
}

function sampleObject(
  doc: Document,
  s: Schema,
  rng: Rng,
  ids: IdPool,
  depth: number,
): Record<string, unknown> {
  const properties = (s['properties'] as Record<string, Schema> | undefined) ?? {};
  const required = new Set((s['required'] as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (required.has(key) || (depth < 4 && rng.chance(0.4)))
      out[key] = sample(doc, property, rng, ids, key, depth + 1);
  }
  return out;
}

function sampleNumber(s: Schema, rng: Rng, integer: boolean): number {
  const min = Number(
    s['minimum'] ?? (s['exclusiveMinimum'] !== undefined ? Number(s['exclusiveMinimum']) + 1 : 0),
  );
  const max = Number(
    s['maximum'] ?? (s['exclusiveMaximum'] !== undefined ? Number(s['exclusiveMaximum']) - 1 : min + 1000),
  );
  const high = Math.min(max, min + 1_000_000);
  return integer ? rng.int(Math.ceil(min), Math.floor(high)) : rng.real(min, high);
}

/** Never a URL anything answers: webhook targets point at a closed loopback port. */
const NOWHERE_URL = 'https://127.0.0.1:9/fuzz';

function sampleString(s: Schema, rng: Rng, ids: IdPool, name: string): string {
  if (/url/i.test(name) || s['format'] === 'uri') return NOWHERE_URL;
  if ((name === 'ref' || name === 'platform_id') && ids.players.length > 0 && rng.chance(0.8)) {
    return rng.pick(ids.players);
  }
  if (name === 'squad_id' && ids.squads.length > 0 && rng.chance(0.8)) return rng.pick(ids.squads);
  if (typeof s['pattern'] === 'string') return sampleRegex(s['pattern'], rng);
  if (s['format'] === 'date-time') return new Date(Date.UTC(2026, 0, rng.int(1, 28))).toISOString();
  const min = Number(s['minLength'] ?? 1);
  const max = Math.min(Number(s['maxLength'] ?? min + 12), min + 24);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 _-';
  return Array.from({ length: rng.int(min, max) }, () => rng.pick([...alphabet])).join('');
}
