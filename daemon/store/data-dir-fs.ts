/**
 * The one way daemon code opens a file in the data dir (docs/data-dir.md, "What the data dir
 * trusts"). Every open carries O_NOFOLLOW, so a symbolic link planted at a state file's name
 * (audit.jsonl → /etc/shadow) fails with a StoreError naming the link instead of redirecting a
 * read or a write, even when the daemon runs as root. Files are created with O_CREAT and mode
 * 0600; the atomic writer's temp files and the lock add O_EXCL, which never reuses a name.
 *
 * eslint.config.js forbids node:fs's open, readFile, writeFile, appendFile, createWriteStream
 * and truncate elsewhere in daemon/, except in the few files that read what is not the data dir
 * (the config file, TLS files, /etc/passwd, /proc), each named there with its reason.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { lstat, open, stat, type FileHandle } from 'node:fs/promises';
import { errnoCode, StoreError } from './errors.ts';

/** Mode of every file in the data dir: owner read/write only. */
export const FILE_MODE = 0o600;
/** Mode of the data dir and its folders: owner only. */
export const DIR_MODE = 0o700;

const {
  O_RDONLY,
  O_WRONLY,
  O_RDWR,
  O_APPEND,
  O_CREAT,
  O_EXCL,
  O_TRUNC,
  O_NOFOLLOW,
  O_NONBLOCK,
  O_DIRECTORY,
} = constants;

/**
 * Added to every open: no link at the last component is followed, and no open waits on a named
 * pipe planted at a file's name (O_NONBLOCK changes nothing for a regular file). What opens is then
 * checked to be a regular file, so a pipe, socket, device or folder at a state file's name fails
 * with a StoreError naming it instead of hanging the daemon or carrying its writes elsewhere.
 */
const ALWAYS = O_NOFOLLOW | O_NONBLOCK;

/** How a data-dir file is opened; each adds ALWAYS. */
const FLAGS = {
  /** Read an existing file. */
  read: O_RDONLY,
  /** Append, creating the file when missing (journals, the audit log, event segments). */
  append: O_WRONLY | O_APPEND | O_CREAT,
  /** Append and read back (the audit log checks how its file ends). */
  appendAndRead: O_RDWR | O_APPEND | O_CREAT,
  /** Create a file that must not exist yet (temp files, the lock). */
  createNew: O_WRONLY | O_CREAT | O_EXCL,
  /** Create or empty a file (a new event segment). */
  replace: O_WRONLY | O_CREAT | O_TRUNC,
  /** Write into an existing file (cutting a torn event line). */
  write: O_WRONLY,
} as const;

export type OpenHow = keyof typeof FLAGS;

/** Opens `path` without following a symbolic link at its last component; a regular file only. */
export async function openDataFile(path: string, how: OpenHow): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, FLAGS[how] | ALWAYS, FILE_MODE);
  } catch (error) {
    throw refusedOpen(path, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notARegularFile(path, entryType(info));
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The synchronous twin of openDataFile(path, 'read'): a file descriptor to read and close. */
export function openDataFileSyncForReading(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | ALWAYS);
  } catch (error) {
    throw refusedOpen(path, error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notARegularFile(path, entryType(info));
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A whole file's text (or bytes), read without following a link. */
export async function readDataText(path: string): Promise<string> {
  return (await readDataBytes(path)).toString('utf8');
}

export async function readDataBytes(path: string): Promise<Buffer> {
  const handle = await openDataFile(path, 'read');
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Opens a folder to fsync it (the data dir itself may be reached through a link: see data-dir.ts). */
export function openFolder(path: string): Promise<FileHandle> {
  return open(path, O_RDONLY | O_DIRECTORY);
}

/**
 * ELOOP (Linux) or EMLINK (FreeBSD) from O_NOFOLLOW means the name is a link; ENXIO (a pipe with
 * no reader, a socket) and EISDIR mean it is not a regular file: each said as a StoreError with its
 * fix. Every other error passes unchanged (ENOENT is the caller's to judge).
 */
function refusedOpen(path: string, error: unknown): unknown {
  const code = errnoCode(error);
  if (code === 'ELOOP' || code === 'EMLINK') {
    return new StoreError('symlink', symlinkMessage(path), { cause: error });
  }
  if (code === 'ENXIO') return notARegularFile(path, 'a named pipe, socket or device', error);
  if (code === 'EISDIR') return notARegularFile(path, 'a folder', error);
  return error;
}

function notARegularFile(path: string, what: string, cause?: unknown): StoreError {
  return new StoreError(
    'wrong_file_type',
    `${path} is ${what}, where modgate keeps a regular file; fix it with: rm ${what === 'a folder' ? '-r ' : ''}${path}, then put the real file there (from a backup, or \`modgate init\` for a data file)`,
    { cause },
  );
}

/** What an entry is, for a message: `a named pipe (FIFO)`. */
export function entryType(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFile()) return 'a regular file';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Follows `<path> is `. */
export const SYMLINK_WHAT =
  'a symbolic link, and modgate follows no link inside its data dir (one could aim its reads and writes at any file)';

export function symlinkMessage(path: string): string {
  return `${path} is ${SYMLINK_WHAT}; fix it with: rm ${path}, then put the real file there (from a backup, or \`modgate init\` for a data file)`;
}

/** The entry itself, a link included (not what it points to), or null when there is none. */
export function lstatOrNull(path: string): Promise<Stats | null> {
  return orNull(lstat(path));
}

/** What `path` leads to, links followed (the data dir itself), or null when there is none. */
export function statOrNull(path: string): Promise<Stats | null> {
  return orNull(stat(path));
}

async function orNull(info: Promise<Stats>): Promise<Stats | null> {
  try {
    return await info;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}
