/**
 * Where the data dir is and whether it may be used: resolution from --data-dir or
 * MODGATE_DATA_DIR, the "was it initialised" check, and the permission check (folder 0700,
 * files 0600, docs/data-dir.md). Every error names the fix.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errnoCode, StoreError } from './errors.ts';

/** The files of an initialised data dir. */
export const DATA_FILES = {
  identity: 'identity.json',
  modKeys: 'mod-keys.json',
  modCredentials: 'mod-credentials.json',
  state: 'state.json',
  keys: 'keys.json',
} as const;

export const DATA_FILE_NAMES: readonly string[] = Object.values(DATA_FILES);

/**
 * Files the daemon creates as it runs (absent until then): the idempotency journal and the audit
 * log. They hold request data, so they are held to the same 0600 rule as the data files.
 */
export const RECORD_FILES = { journal: 'idempotency.jsonl', audit: 'audit.jsonl' } as const;

export const RECORD_FILE_NAMES: readonly string[] = Object.values(RECORD_FILES);

/** The exclusive lock the CLI takes for a read-modify-write (see lock.ts). */
export const LOCK_FILE = '.lock';

export const DATA_DIR_ENV = 'MODGATE_DATA_DIR';

/** The data dir from the flag, else from MODGATE_DATA_DIR, as an absolute path. */
export function resolveDataDir(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const chosen = nonEmpty(flag) ?? nonEmpty(env[DATA_DIR_ENV]);
  if (chosen === undefined) {
    throw new StoreError(
      'data_dir_required',
      `no data dir given: pass --data-dir DIR or set ${DATA_DIR_ENV} (create one with \`modgate init --data-dir DIR\`)`,
    );
  }
  return resolve(chosen);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Checks that `dir` is an initialised data dir that only its owner can read: the folder exists,
 * identity.json and every other file are there, and no permission is looser than 0700 / 0600.
 */
export async function assertDataDirReady(dir: string): Promise<void> {
  await assertInitialised(dir);
  await assertPermissions(dir);
}

export async function assertInitialised(dir: string): Promise<void> {
  const notInitialised = `${dir} is not an initialised modgate data dir; run \`modgate init --data-dir ${dir}\` first`;
  const folder = await statOrNull(dir);
  if (folder === null || !folder.isDirectory()) throw new StoreError('not_initialised', notInitialised);
  if ((await statOrNull(join(dir, DATA_FILES.identity))) === null) {
    throw new StoreError('not_initialised', notInitialised);
  }
  for (const name of DATA_FILE_NAMES) {
    if ((await statOrNull(join(dir, name))) === null) {
      throw new StoreError(
        'missing_file',
        `${join(dir, name)} is missing; run \`modgate init --data-dir ${dir}\` to recreate it`,
      );
    }
  }
}

/**
 * Refuses a folder looser than 0700 or a file looser than 0600 (any group or other bit), the
 * journal and the audit log included.
 */
export async function assertPermissions(dir: string): Promise<void> {
  const folder = await stat(dir);
  if ((folder.mode & 0o077) !== 0) {
    throw new StoreError(
      'insecure_permissions',
      `${dir} is accessible to other users (mode ${formatMode(folder.mode)}); fix it with: chmod 700 ${dir}`,
    );
  }
  const loose: string[] = [];
  for (const name of [...DATA_FILE_NAMES, ...RECORD_FILE_NAMES]) {
    const file = await statOrNull(join(dir, name));
    if (file !== null && (file.mode & 0o077) !== 0) loose.push(join(dir, name));
  }
  if (loose.length > 0) {
    const which = loose.length === 1 ? `${loose[0]} is` : `${loose.join(', ')} are`;
    throw new StoreError(
      'insecure_permissions',
      `${which} accessible to other users; fix it with: chmod 600 ${loose.join(' ')}`,
    );
  }
}

export function formatMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

export async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}
