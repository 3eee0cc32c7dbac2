/** The other half of the fixture's type-only import cycle (first.ts). */
import type { First } from './first.ts';

export interface Second {
  previous: First | null;
}
