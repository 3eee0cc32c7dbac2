/**
 * Crash-safe file replacement (docs/data-dir.md): write a temp file in the same folder,
 * fsync it, rename it over the target, fsync the folder. A reader sees either the old file or
 * the new one, never a torn write, and after a power cut the rename itself is durable.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DIR_MODE, FILE_MODE, openDataFile, openFolder, symlinkMessage } from './data-dir-fs.ts';
import { errnoCode, StoreError } from './errors.ts';

export { DIR_MODE, FILE_MODE };

/** The temp files this module creates start with this marker, so they are easy to recognise. */
export function tempFileName(target: string): string {
  return `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`;
}

export async function writeFileAtomic(target: string, contents: string): Promise<void> {
  const folder = dirname(target);
  const temp = join(folder, tempFileName(target));
  try {
    const handle = await openDataFile(temp, 'createNew');
    try {
      await handle.writeFile(contents, 'utf8');
      // The mode given to open() is filtered by the umask; set it explicitly all the same.
      await handle.chmod(FILE_MODE);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncFolder(folder);
}

/** Writes `value` as pretty JSON with a trailing newline, atomically. */
export async function writeJsonAtomic(target: string, value: unknown): Promise<void> {
  await writeFileAtomic(target, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Creates the folder (and missing parents) with mode 0700. One that exists already must be a
 * folder, not a link to one: files opened inside it would land wherever the link points.
 */
export async function ensureFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: DIR_MODE });
  if ((await lstat(folder)).isSymbolicLink()) throw new StoreError('symlink', symlinkMessage(folder));
}

/** Makes a rename in `folder` durable. Platforms that cannot fsync a folder are skipped. */
export async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await openFolder(folder);
    await handle.sync();
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'EBADF') throw error;
  } finally {
    await handle?.close();
  }
}
