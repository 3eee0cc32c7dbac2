/**
 * The suite's global setup for the single executable (vitest.config.ts, project `shared`): makes
 * the run's empty binary folder and provides it as `binaryFolder`; shared-binary.ts builds the
 * binary there the first time a file asks for it, not here, so a run of files that never run the
 * binary (most `vitest run FILE`s) spends nothing on it. The folder is removed when the run ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where shared-binary.ts builds this run's binary, once, for every file that runs it. */
    binaryFolder: string;
  }
}

export default async function setup({ provide }: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'modgate-binary-run-'));
  provide('binaryFolder', folder);
  return () => rm(folder, { recursive: true, force: true });
}
