/**
 * What the data dir must be before modgate reads a byte of it (docs/data-dir.md, "What the data
 * dir trusts"), the rule OpenSSH's StrictModes applies to ~/.ssh:
 *
 * - the folder, and everything in it, belongs to the user running modgate or to root: a file
 *   another user owns could say anything, and a folder another user owns could be changed under
 *   the daemon at any time;
 * - nothing in it is a symbolic link: the daemon, perhaps root, would read or write wherever the
 *   link points (audit.jsonl → /etc/shadow);
 * - the folder and `events/` are 0700 and the state files 0600; anything else in it (a folder the
 *   operator adds) at least not writable by group or others;
 * - each entry is of its kind: the folders are folders, the state files regular files, and
 *   nothing in it is a pipe, a socket or a device (a FIFO at keys.json would hang every read of it;
 *   one at audit.jsonl would carry the audit trail to whoever reads the pipe).
 *
 * The data dir path itself may be a link (/var/lib/modgate → /srv/modgate): resolveDataDir()
 * resolves it once, and the folder checked is the real one. Doctor reports the same problems
 * (service/doctor/data-dir-checks.ts); serve and every command refuse them (data-dir.ts).
 */
import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { entryType, lstatOrNull, SYMLINK_WHAT } from './data-dir-fs.ts';
import { userName } from './user-name.ts';

/** The daemon's own folder inside the data dir (daemon/events/segments.ts writes it). */
export const EVENTS_FOLDER = 'events';

export type TrustProblemKind =
  'folder_mode' | 'private_mode' | 'writable' | 'owner' | 'symlink' | 'file_type';

export interface TrustProblem {
  readonly kind: TrustProblemKind;
  readonly path: string;
  /** What is wrong, to follow `<path> is `: `accessible to other users (mode 0644)`. */
  readonly what: string;
  /** The command that fixes it. */
  readonly fix: string;
}

export interface TrustRules {
  /** The user modgate runs as; root (0) is trusted besides. */
  readonly uid: number;
  /** Files that hold secrets or request data: 0600, not just "not writable by others". */
  readonly privateFiles: readonly string[];
  /**
   * Unix sockets the daemon listens on (admin.sock): a socket, 0600, and only under these names.
   * A socket is never read as a file, so it cannot feed the daemon a forged file.
   */
  readonly sockets?: readonly string[];
}

/** Every problem of the folder `dir` (already resolved) and of what it holds, folder first. */
export async function findUntrusted(dir: string, rules: TrustRules): Promise<TrustProblem[]> {
  const folder = await lstat(dir);
  const problems = judge(dir, folder, rules, 'folder');
  if (problems.some((problem) => problem.kind === 'owner')) return problems;
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const entry = await lstatOrNull(path);
    if (entry === null) continue; // a temp file or lock that went away meanwhile
    const kind = entryKind(name, rules);
    const found = judge(path, entry, rules, kind);
    problems.push(...found);
    if (found.length === 0 && kind === 'folder' && entry.isDirectory()) {
      problems.push(...(await judgeContents(path, rules)));
    }
  }
  return problems;
}

/** The entries of the daemon's own subfolder: links, owners and writable modes. */
async function judgeContents(folder: string, rules: TrustRules): Promise<TrustProblem[]> {
  const problems: TrustProblem[] = [];
  for (const name of await readdir(folder)) {
    const entry = await lstatOrNull(join(folder, name));
    if (entry !== null) problems.push(...judge(join(folder, name), entry, rules, 'other'));
  }
  return problems;
}

type EntryKind = 'folder' | 'private' | 'socket' | 'other';

function entryKind(name: string, rules: TrustRules): EntryKind {
  if (name === EVENTS_FOLDER) return 'folder';
  if (rules.privateFiles.includes(name)) return 'private';
  return rules.sockets?.includes(name) ? 'socket' : 'other';
}

/** The mode bits each kind of entry must not have, and the chmod that clears them. */
const MODE_RULES = {
  folder: { forbidden: 0o077, kind: 'folder_mode', what: 'accessible to other users', chmod: 'chmod 700' },
  private: { forbidden: 0o077, kind: 'private_mode', what: 'accessible to other users', chmod: 'chmod 600' },
  socket: { forbidden: 0o077, kind: 'private_mode', what: 'accessible to other users', chmod: 'chmod 600' },
  other: { forbidden: 0o022, kind: 'writable', what: 'writable by other users', chmod: 'chmod go-w' },
} as const;

function judge(path: string, info: Stats, rules: TrustRules, kind: EntryKind): TrustProblem[] {
  if (info.isSymbolicLink()) {
    return [{ kind: 'symlink', path, what: SYMLINK_WHAT, fix: `rm ${path}` }];
  }
  const wrongType = typeProblem(path, info, kind);
  if (wrongType) return [wrongType];
  const problems: TrustProblem[] = [];
  if (info.uid !== rules.uid && info.uid !== 0)
    problems.push(ownerProblem(path, info.uid, rules.uid, kind === 'folder'));
  const rule = MODE_RULES[kind];
  if ((info.mode & rule.forbidden) !== 0) {
    problems.push({
      kind: rule.kind,
      path,
      what: `${rule.what} (mode ${formatMode(info.mode)})`,
      fix: `${rule.chmod} ${path}`,
    });
  }
  return problems;
}

/** A folder where a folder belongs, a regular file where a state file does, and never a pipe, socket or device. */
function typeProblem(path: string, info: Stats, kind: EntryKind): TrustProblem | null {
  const fits = {
    folder: () => info.isDirectory(),
    private: () => info.isFile(),
    socket: () => info.isSocket(),
    other: () => info.isFile() || info.isDirectory(),
  }[kind]();
  if (fits) return null;
  const expected = { folder: 'a folder', private: 'a regular file', socket: 'a socket', other: '' }[kind];
  return {
    kind: 'file_type',
    path,
    what: `${entryType(info)}, where modgate keeps ${kind === 'other' ? 'only files and folders' : expected}`,
    fix:
      kind === 'socket'
        ? `rm ${info.isDirectory() ? '-r ' : ''}${path} (\`modgate serve\` creates its socket there)`
        : `rm ${info.isDirectory() ? '-r ' : ''}${path}, then put the real ${kind === 'folder' ? 'folder' : 'file'} there (from a backup, or \`modgate init\` for a data file)`,
  };
}

/**
 * For the folder itself the usual cause is running modgate as the wrong user (root, on the
 * service user's data dir): run it as the owner. For a file inside, someone put it there.
 */
function ownerProblem(path: string, owner: number, me: number, isFolder: boolean): TrustProblem {
  const runAsOwner = `run modgate as its owner: sudo -u ${userName(owner) ?? `'#${owner}'`} modgate …`;
  const takeBack = `chown ${isFolder ? '-R ' : ''}${userName(me) ?? me} ${path}`;
  return {
    kind: 'owner',
    path,
    what: `owned by ${nameOf(owner)}, but modgate runs as ${nameOf(me)} and trusts only what belongs to that user or to root`,
    fix: isFolder
      ? `${runAsOwner}, or take it over: ${takeBack}`
      : `${takeBack} (and find out who put it there)`,
  };
}

function nameOf(uid: number): string {
  return userName(uid) ?? `uid ${uid}`;
}

export function formatMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}
