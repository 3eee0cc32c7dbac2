/** One half of a type-only import cycle: the fixture test/daemon/import-cycles.test.ts must catch. */
import type { Second } from './second.ts';

export interface First {
  next: Second | null;
}
