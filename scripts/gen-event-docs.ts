/**
 * Writes the event table of protocol/PROTOCOL.md §9.7 and protocol/events.schema.json from the
 * daemon's event schemas. `--check` writes nothing and exits 1 when either is out of date.
 */
import { eventSchemas, withEventTable } from '../daemon/events/event-docs.ts';
import { writeGenerated } from './generated-files.ts';

writeGenerated(
  [
    { path: new URL('../protocol/PROTOCOL.md', import.meta.url), render: (old) => withEventTable(old) },
    { path: new URL('../protocol/events.schema.json', import.meta.url), render: () => eventSchemas() },
  ],
  'scripts/gen-event-docs.ts',
  'event docs',
);
