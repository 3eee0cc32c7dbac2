/**
 * The order `npm test` hands its files to the workers: the longest first, so that a run does not
 * end on one long file started late while the other workers sit idle (docs/architecture.md,
 * "Where tests live").
 *
 * vitest orders a run by the durations it cached from the last run on this machine, and a fresh
 * clone has none: it falls back to the larger file first, and a test file's size says little
 * about its time (a 140-line file that runs `mod test` seven times takes a minute). So until
 * vitest has a duration of its own for every file of the run, the durations of
 * `test/durations.json` (`npm run test:durations`) order it; after that, vitest's order (the failed
 * first, then the longest) stands. A file the list does not know, one added since, goes first, as
 * vitest runs a file it has never seen first.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** `test/durations.json`: each test file's seconds in a full run, by its path in the checkout. */
export interface Durations {
  readonly files: Readonly<Record<string, number>>;
}

export const DURATIONS_FILE = new URL('../durations.json', import.meta.url);

/** Each file's seconds from the list at `file` (the repository's unless told). */
export function readDurations(file: URL = DURATIONS_FILE): Durations['files'] {
  return (JSON.parse(readFileSync(file, 'utf8')) as Durations).files;
}

/**
 * `files` in the order they are handed out: each project where vitest put it, and within a
 * project a file without a duration first, then the longest; equal durations keep vitest's order.
 */
export function longestFirst<File>(
  files: readonly File[],
  project: (file: File) => string,
  seconds: (file: File) => number | undefined,
): File[] {
  const projectRank = new Map<string, number>();
  for (const file of files)
    if (!projectRank.has(project(file))) projectRank.set(project(file), projectRank.size);
  const rank = (file: File) => projectRank.get(project(file)) ?? 0;
  const time = (file: File) => seconds(file) ?? Number.POSITIVE_INFINITY;
  return files
    .map((file, index) => ({ file, index }))
    .sort((a, b) => rank(a.file) - rank(b.file) || time(b.file) - time(a.file) || a.index - b.index)
    .map(({ file }) => file);
}

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (file: TestSpecification) => relative(root, file.moduleId);
    const measuredHere = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${path(file)}`) !== undefined;
    if (ordered.every(measuredHere)) return ordered;
    const durations = readDurations();
    return longestFirst(
      ordered,
      (file) => file.project.name,
      (file) => (Object.hasOwn(durations, path(file)) ? durations[path(file)] : undefined),
    );
  }
}
