/**
 * Writes files generated from the code (the op and event documentation for mod authors), or with
 * `--check` writes nothing and sets exit code 1 when one is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface GeneratedFile {
  path: URL;
  /** The file's new text from its current text ('' when it does not exist yet). */
  render: (old: string) => string;
}

export function writeGenerated(targets: readonly GeneratedFile[], script: string, what: string): void {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const { path, render } of targets) {
    let old = '';
    try {
      old = readFileSync(path, 'utf8');
    } catch {
      // a file not written yet is simply stale
    }
    const next = render(old);
    if (next === old) continue;
    stale++;
    if (check) console.error(`${path.pathname} is out of date: run npx tsx ${script}`);
    else writeFileSync(path, next);
  }
  if (check && stale > 0) process.exitCode = 1;
  else console.log(check ? `${what} are up to date` : `wrote ${stale} file(s)`);
}
