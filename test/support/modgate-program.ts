/**
 * Run before every test file (vitest.config.ts `setupFiles`): makes the CLI bundle that
 * cli-bundle-setup.ts built for this run the program harness `start` runs when not told. A
 * project without that global setup (`isolated`, `dist`) keeps bin/modgate.js. In `shared`
 * (isolate: false) a worker keeps the harness module from file to file, so this sets the same
 * value again; a setup file, unlike a module, runs for every file.
 */
import { inject } from 'vitest';
import { useProgram } from '../../harness/processes.ts';

const program = inject('modgateProgram');
if (program !== undefined) useProgram(program);
