/**
 * "Permission denied" as an operator can act on it: which file, which user it belongs to, who
 * this command runs as, and the same command again as the owner (`sudo -u modgate modgate …`).
 * The usual cause is running the CLI as yourself against the daemon's data dir.
 */
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { userName } from '../daemon/store/user-name.ts';

/** The message for an EACCES/EPERM on a path, or null when the error names no path. */
export function permissionMessage(error: NodeJS.ErrnoException, argv: readonly string[]): string | null {
  if (typeof error.path !== 'string') return null;
  const owner = ownerOf(error.path);
  const me = currentUser();
  const what = `permission denied: cannot ${verbOf(error.syscall)} ${error.path}`;
  if (owner === null) return `${what} (running as ${me}); check its owner and mode`;
  if (owner.name === me) {
    return `${what}: it belongs to ${me}, who runs this command, but its mode forbids it; check the mode (data dir 0700, files 0600)`;
  }
  const again = ['sudo', '-u', owner.name, 'modgate', ...argv.map(shellWord)].join(' ');
  return `${what}: it belongs to user ${owner.name}, and this command runs as ${me}. Run it as the owner:\n  ${again}`;
}

/** The owner of `path`, or of its nearest folder this user may look at. */
function ownerOf(path: string): { name: string; uid: number } | null {
  for (let current = path; ; current = dirname(current)) {
    try {
      const { uid } = statSync(current);
      return { uid, name: userName(uid) ?? `uid ${uid}` };
    } catch {
      if (dirname(current) === current) return null;
    }
  }
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

function verbOf(syscall: string | undefined): string {
  if (syscall === 'open' || syscall === 'read' || syscall === 'scandir') return 'open';
  if (syscall === 'mkdir') return 'create a folder in';
  return syscall ? `${syscall}` : 'use';
}

/** Quotes an argument for a POSIX shell when it needs it. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
