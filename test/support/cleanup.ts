/**
 * Run after every test file (vitest.config.ts `setupFiles`): removes the data dirs the file made
 * through harness/data-dir.ts and did not remove itself, so `npm test` leaves nothing in the
 * temp folder. Vitest runs after-hooks in reverse order, so this runs after the file's own,
 * once its serves and simulators have stopped.
 */
import { afterAll } from 'vitest';
import { removeLeftoverDataDirs } from '../../harness/data-dir.ts';

afterAll(removeLeftoverDataDirs);
