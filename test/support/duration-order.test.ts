/**
 * The order a fresh clone's run takes its files in (duration-order.ts): the longest first within
 * each project, a file the list does not know before them; test/durations.json's shape.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DURATIONS_FILE, longestFirst, type Durations } from './duration-order.ts';

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
    const { files } = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Durations;
    const entries = Object.entries(files);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter(([path, seconds]) => !path.endsWith('.test.ts') || !(seconds >= 0))).toEqual([]);
  });
});
