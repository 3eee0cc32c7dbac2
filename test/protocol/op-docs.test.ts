import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { opSchemas, withOpTable } from '../../protocol/ops/docs.ts';
import { OPS } from '../../protocol/ops/index.ts';

const protocolMd = readFileSync(new URL('../../protocol/PROTOCOL.md', import.meta.url), 'utf8');
const schemaJson = readFileSync(new URL('../../protocol/ops.schema.json', import.meta.url), 'utf8');

describe('the op documentation for mod authors', () => {
  it('lists every op of the catalogue in PROTOCOL.md §6.1, as generated', () => {
    expect(withOpTable(protocolMd)).toBe(protocolMd);
    for (const name of Object.keys(OPS)) expect(protocolMd).toContain(`| \`${name}\` |`);
  });

  it('ships the JSON Schema of every op as generated', () => {
    expect(schemaJson).toBe(opSchemas());
    expect(Object.keys((JSON.parse(schemaJson) as { ops: object }).ops).sort()).toEqual(
      Object.keys(OPS).sort(),
    );
  });
});
