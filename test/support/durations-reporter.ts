/**
 * `npm run test:durations`: writes each file's seconds in the run (its tests and hooks, as vitest's
 * module diagnostic measures them) to `test/durations.json`, the order a fresh clone's run takes
 * its files in (duration-order.ts). Files the run left out keep the seconds they had, and files no
 * longer in the checkout are dropped; a run that did not pass writes nothing. The seconds are only
 * comparable within one run, so the script runs the whole suite.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import { DURATIONS_FILE, readDurations, type Durations } from './duration-order.ts';

export default class DurationsReporter implements Reporter {
  #root = '';
  readonly #seconds = new Map<string, number>();

  readonly #file: URL;

  /** `file`: where the list is; the repository's unless a test gives its own. */
  constructor(file: URL = DURATIONS_FILE) {
    this.#file = file;
  }

  onInit(vitest: Vitest): void {
    this.#root = vitest.config.root;
  }

  onTestModuleEnd(module: TestModule): void {
    const seconds = Math.round(module.diagnostic().duration / 100) / 10;
    this.#seconds.set(relative(this.#root, module.moduleId), seconds);
  }

  onTestRunEnd(_modules: readonly TestModule[], _errors: unknown, reason: TestRunEndReason): void {
    if (reason !== 'passed') {
      process.stderr.write(`test/durations.json left as it was: the run ${reason}\n`);
      return;
    }
    const before = readDurations(this.#file);
    const merged = { ...before, ...Object.fromEntries(this.#seconds) };
    const files = Object.fromEntries(
      Object.entries(merged)
        .filter(([path]) => existsSync(join(this.#root, path)))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    writeFileSync(this.#file, `${JSON.stringify({ files } satisfies Durations, null, 2)}\n`);
    process.stderr.write(
      `test/durations.json: ${this.#seconds.size} files measured, ${Object.keys(files).length} listed\n`,
    );
  }
}
