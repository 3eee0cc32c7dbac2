/**
 * The order a fresh clone's run takes its files in (duration-order.ts): the longest first within
 * each project, a file the list does not know before them, and vitest's own order once it has
 * measured every file; `npm run test:durations`'s reporter; test/durations.json's shape.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestModule, TestSpecification, Vitest } from 'vitest/node';
import { makeTempDir } from '../daemon/store/temp-dir.ts';
import { DurationSequencer, longestFirst, readDurations } from './duration-order.ts';
import DurationsReporter from './durations-reporter.ts';

interface File {
  name: string;
  project: string;
}

const order = (files: File[], seconds: Record<string, number>) =>
  longestFirst(
    files,
    (file) => file.project,
    (file) => seconds[file.name],
  ).map((file) => file.name);

describe('longestFirst', () => {
  it('puts the longest first, within each project in the order vitest gave the projects', () => {
    const files = [
      { name: 'i-short', project: 'isolated' },
      { name: 'i-long', project: 'isolated' },
      { name: 's-short', project: 'shared' },
      { name: 's-long', project: 'shared' },
      { name: 's-mid', project: 'shared' },
    ];
    const seconds = { 'i-short': 1, 'i-long': 9, 's-short': 0.2, 's-long': 60, 's-mid': 12 };
    expect(order(files, seconds)).toEqual(['i-long', 'i-short', 's-long', 's-mid', 's-short']);
  });

  it('runs a file it has no duration for first, and keeps the given order between equals', () => {
    const files = ['a', 'b', 'new', 'c'].map((name) => ({ name, project: 'shared' }));
    expect(order(files, { a: 1, b: 5, c: 1 })).toEqual(['new', 'b', 'a', 'c']);
  });
});

describe('test/durations.json', () => {
  it('gives seconds for test files', () => {
    const entries = Object.entries(readDurations());
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter(([path, seconds]) => !path.endsWith('.test.ts') || !(seconds >= 0))).toEqual([]);
  });
});

/**
 * The parts of a vitest run the sequencer reads, from vitest's own cache of results: `measured`
 * is the files it holds a duration for (vitest's order puts the longest of them first).
 */
function runWith(root: string, measured: Record<string, number>) {
  const ctx = {
    config: { root },
    cache: {
      getFileTestResults: (key: string) => {
        const seconds = measured[key.replace(/^shared:/, '')];
        return seconds === undefined ? undefined : { duration: seconds * 1000, failed: false };
      },
      getFileStats: () => ({ size: 1 }),
    },
  } as unknown as Vitest;
  const spec = (path: string) =>
    ({
      moduleId: join(root, path),
      project: { name: 'shared', config: { sequence: { groupOrder: 0 }, isolate: false } },
    }) as unknown as TestSpecification;
  return { sequencer: new DurationSequencer(ctx), spec };
}

describe('DurationSequencer', () => {
  const root = new URL('../..', import.meta.url).pathname;
  const [longest, shortest] = Object.entries(readDurations())
    .sort(([, a], [, b]) => b - a)
    .filter((_, i, all) => i === 0 || i === all.length - 1)
    .map(([path]) => path) as [string, string];

  it('orders a run vitest has not measured by test/durations.json', async () => {
    const { sequencer, spec } = runWith(root, {});
    const sorted = await sequencer.sort([spec(shortest), spec(longest)]);
    expect(sorted.map((file) => file.moduleId)).toEqual([join(root, longest), join(root, shortest)]);
  });

  it("keeps vitest's own order once it has measured every file of the run", async () => {
    const { sequencer, spec } = runWith(root, { [longest]: 1, [shortest]: 2 });
    const sorted = await sequencer.sort([spec(longest), spec(shortest)]);
    expect(sorted.map((file) => file.moduleId)).toEqual([join(root, shortest), join(root, longest)]);
  });
});

describe('the durations reporter', () => {
  const module = (root: string, path: string, ms: number) =>
    ({ moduleId: join(root, path), diagnostic: () => ({ duration: ms }) }) as unknown as TestModule;

  it('writes the seconds of the files a passing run measured, keeps the others, drops files gone', async () => {
    const root = await makeTempDir();
    for (const path of ['a.test.ts', 'b.test.ts']) writeFileSync(join(root, path), '');
    const list = pathToFileURL(join(root, 'durations.json'));
    writeFileSync(list, JSON.stringify({ files: { 'b.test.ts': 7, 'gone.test.ts': 3 } }));
    const reporter = new DurationsReporter(list);
    reporter.onInit({ config: { root } } as unknown as Vitest);
    reporter.onTestModuleEnd(module(root, 'a.test.ts', 12_345));
    reporter.onTestRunEnd([], [], 'passed');
    expect(JSON.parse(readFileSync(list, 'utf8'))).toEqual({ files: { 'a.test.ts': 12.3, 'b.test.ts': 7 } });
  });

  it('writes nothing after a run that failed', async () => {
    const root = await makeTempDir();
    const list = pathToFileURL(join(root, 'durations.json'));
    writeFileSync(list, '{"files":{}}');
    const reporter = new DurationsReporter(list);
    reporter.onInit({ config: { root } } as unknown as Vitest);
    reporter.onTestModuleEnd(module(root, 'a.test.ts', 1000));
    reporter.onTestRunEnd([], [], 'failed');
    expect(readFileSync(list, 'utf8')).toBe('{"files":{}}');
  });
});
