/**
 * What `modgate doctor` reports: one result per check, ok, warn or fail, with the fix for
 * anything that is not ok. Warnings leave the exit code at 0; a single failure makes it 1.
 */
import { userName } from '../../../daemon/store/user-name.ts';

export type CheckLevel = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  level: CheckLevel;
  /** What was checked, short: `data dir`, `keys.json`, `tls certificate`, `api listen`. */
  subject: string;
  message: string;
  /** How to fix it: a command or a sentence; absent when ok. */
  fix?: string;
}

export const ok = (subject: string, message: string): CheckResult => ({ level: 'ok', subject, message });

export const warn = (subject: string, message: string, fix: string): CheckResult => ({
  level: 'warn',
  subject,
  message,
  fix,
});

export const fail = (subject: string, message: string, fix: string): CheckResult => ({
  level: 'fail',
  subject,
  message,
  fix,
});

export function hasFailure(results: readonly CheckResult[]): boolean {
  return results.some((result) => result.level === 'fail');
}

/** Aligned text: `fail  keys.json         message` and an indented `fix:` line. */
export function formatResults(results: readonly CheckResult[]): string[] {
  const width = Math.max(0, ...results.map((result) => result.subject.length));
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`${result.level.padEnd(5)} ${result.subject.padEnd(width)}  ${result.message}`);
    if (result.fix !== undefined) lines.push(`${' '.repeat(width + 8)}fix: ${result.fix}`);
  }
  const count = (level: CheckLevel) => results.filter((result) => result.level === level).length;
  const [warnings, failures] = [count('warn'), count('fail')];
  lines.push(
    '',
    `${count('ok')} ok, ${warnings} warning${warnings === 1 ? '' : 's'}, ${failures} failure${failures === 1 ? '' : 's'}`,
  );
  return lines;
}

/** `modgate (uid 998)`, or `uid 998` when /etc/passwd does not name it. */
export function describeUid(uid: number): string {
  const name = userName(uid);
  return name === null ? `uid ${uid}` : `${name} (uid ${uid})`;
}

export function errorText(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES') return 'is not readable by this user';
  return error instanceof Error ? error.message : String(error);
}
