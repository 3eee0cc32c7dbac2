/**
 * How the CLI reads and changes one file of an initialised data dir: the readiness check
 * (initialised, permissions), then a read, or a read-modify-write under the data dir lock.
 */
import { assertDataDirReady } from './data-dir.ts';
import { readDataFile, writeDataFile, type DataFile } from './data-file.ts';
import { withDataDirLock, type LockOptions } from './lock.ts';

export async function readFromDataDir<T>(dir: string, file: DataFile<T>): Promise<T> {
  await assertDataDirReady(dir);
  return readDataFile(dir, file);
}

export interface Update<T> {
  readonly before: T;
  readonly after: T;
  /** False when `change` returned an equal value; nothing was written then. */
  readonly changed: boolean;
}

/**
 * Reads `file`, applies `change` and writes the result, all while holding the lock, so a
 * concurrent command cannot slip its own update in between. `change` may throw to abort.
 */
export async function updateInDataDir<T>(
  dir: string,
  file: DataFile<T>,
  change: (current: T) => T,
  lockOptions?: LockOptions,
): Promise<Update<T>> {
  await assertDataDirReady(dir);
  return withDataDirLock(
    dir,
    async () => {
      const before = await readDataFile(dir, file);
      const after = change(before);
      const changed = JSON.stringify(file.serialize(after)) !== JSON.stringify(file.serialize(before));
      if (changed) await writeDataFile(dir, file, after);
      return { before, after, changed };
    },
    lockOptions,
  );
}
