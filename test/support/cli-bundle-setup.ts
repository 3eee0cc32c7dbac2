/**
 * The suite's global setup (vitest.config.ts, project `shared`): bundles the CLI once per run
 * (cli-bundle.ts) and provides how to run it as `modgateProgram`; modgate-program.ts makes it
 * harness `start`'s default in every test file. Started through bin/modgate.js, each `serve`,
 * `sim` or CLI command spent over a second of CPU in tsx's loader before it ran
 * (docs/architecture.md, "Where tests live"). The bundle is removed when the run ends.
 */
import type { TestProject } from 'vitest/node';
import { bundleCli } from './cli-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** harness `start`'s program during the suite: node, its flags and the bundle, last. */
    modgateProgram: readonly string[];
  }
}

export default async function setup({ provide }: TestProject): Promise<() => Promise<void>> {
  const cli = await bundleCli();
  provide('modgateProgram', cli.program);
  return () => cli.remove();
}
