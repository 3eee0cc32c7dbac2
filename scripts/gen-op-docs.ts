/**
 * Writes the op table of protocol/PROTOCOL.md §6.1 and protocol/ops.schema.json from the op
 * catalogue. `--check` writes nothing and exits 1 when either is out of date.
 */
import { opSchemas, withOpTable } from '../protocol/ops/docs.ts';
import { writeGenerated } from './generated-files.ts';

writeGenerated(
  [
    { path: new URL('../protocol/PROTOCOL.md', import.meta.url), render: (old) => withOpTable(old) },
    { path: new URL('../protocol/ops.schema.json', import.meta.url), render: () => opSchemas() },
  ],
  'scripts/gen-op-docs.ts',
  'op docs',
);
