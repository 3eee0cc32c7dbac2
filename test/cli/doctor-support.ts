/** What the doctor tests share: a ready data dir, free ports, and reading doctor's report. */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, runOk, type CliRun } from '../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';

export { freePort };

/**
 * An initialised data dir with premium, the API enabled, one key and the mod's url on `modPort`:
 * nothing to warn about.
 */
export async function readyDataDir(modPort: number): Promise<string> {
  const dir = await premiumDataDir(join(await mkdtemp(join(tmpdir(), 'modgate-doctor-')), 'data'));
  await runOk(['api', 'enable', '--data-dir', dir]);
  await createKey(dir);
  await pointModUrl(dir, modPort);
  return dir;
}

/** Sets the url in mod-credentials.json, as an operator does by hand (the mode stays 0600). */
export async function pointModUrl(dir: string, port: number): Promise<void> {
  const path = join(dir, 'mod-credentials.json');
  const credentials = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, JSON.stringify({ ...credentials, url: `ws://127.0.0.1:${port}` }));
}

export interface DoctorRun extends CliRun {
  /** The report line of `subject` (`fail  keys.json  …`), and the fix line after it if any. */
  line(subject: string): string;
  fix(subject: string): string | undefined;
}

/** `modgate doctor --data-dir DIR` on two ports of this machine, plus `extra` flags. */
export async function doctor(
  dir: string,
  ports: { api: number; mod: number },
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<DoctorRun> {
  const argv = ['doctor', '--data-dir', dir, '--listen', `127.0.0.1:${ports.api}`];
  argv.push('--mod-listen', `127.0.0.1:${ports.mod}`, ...extra);
  const result = await run(argv, { env });
  const lines = result.stdout.split('\n');
  const index = (subject: string) =>
    lines.findIndex((line) => new RegExp(`^(ok|warn|fail) +${escape(subject)}  `).test(line));
  return {
    ...result,
    line: (subject) => lines[index(subject)] ?? '',
    fix: (subject) => {
      const next = lines[index(subject) + 1];
      return next?.trim().startsWith('fix: ') ? next.trim().slice(5) : undefined;
    },
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
