import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventSchemas, withEventTable } from '../../../daemon/events/event-docs.ts';
import { DAEMON_EVENT_TYPES, EVENT_DATA } from '../../../daemon/events/event-schemas.ts';
import { EVENT_TYPES } from '../../../daemon/events/types.ts';

const protocolMd = readFileSync(new URL('../../../protocol/PROTOCOL.md', import.meta.url), 'utf8');
const schemaJson = readFileSync(new URL('../../../protocol/events.schema.json', import.meta.url), 'utf8');
const eventsMd = readFileSync(new URL('../../../docs/events.md', import.meta.url), 'utf8');

describe('the event documentation for mod authors (PROTOCOL §9.7)', () => {
  it('lists every game event type in PROTOCOL.md, as generated', () => {
    expect(withEventTable(protocolMd)).toBe(protocolMd);
    for (const type of Object.keys(EVENT_DATA)) expect(protocolMd).toContain(`| \`${type}\` |`);
  });

  it('ships the JSON Schema of every game event type as generated, with the reserved ones apart', () => {
    expect(schemaJson).toBe(eventSchemas());
    const document = JSON.parse(schemaJson) as { types: object; reserved_types: string[] };
    const gameTypes = EVENT_TYPES.filter((type) => !DAEMON_EVENT_TYPES.has(type));
    expect(Object.keys(document.types).sort()).toEqual([...gameTypes].sort());
    expect(document.reserved_types.sort()).toEqual([...DAEMON_EVENT_TYPES].sort());
  });

  it('leaves every schema open for additions, as the daemon drops unknown fields', () => {
    expect(schemaJson).not.toContain('"additionalProperties": false');
  });

  it('is what docs/events.md points mod authors at', () => {
    expect(eventsMd).toContain('protocol/events.schema.json');
    expect(eventsMd).toContain('PROTOCOL.md` §9.7');
  });
});
