/**
 * Where the data dir is and whether it may be used: resolution from --data-dir or
 * MODGATE_DATA_DIR, the "was it initialised" check, and the trust check (owner, links, folder
 * 0700, files 0600: data-dir-trust.ts, docs/data-dir.md). Every error names the fix.
 */
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { lstatOrNull, statOrNull, symlinkMessage } from './data-dir-fs.ts';
import { findUntrusted, formatMode, type TrustProblem } from './data-dir-trust.ts';
import { errnoCode, StoreError, type StoreErrorCode } from './errors.ts';

export { formatMode, lstatOrNull, statOrNull };

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

/**
 * The webhooks' files (daemon/events/webhooks/): the endpoints and their secrets, created by the
 * first `webhooks add`, and the daemon's delivery journal. Named here so the data dir check holds
 * them to 0600 like the rest.
 */
export const WEBHOOK_FILES = { endpoints: 'webhooks.json', outbox: 'webhook-outbox.jsonl' } as const;

/** Every file the data dir check holds to 0600 (anything else in the folder: not writable by others). */
export const PRIVATE_FILE_NAMES: readonly string[] = [
  ...DATA_FILE_NAMES,
  ...RECORD_FILE_NAMES,
  ...Object.values(WEBHOOK_FILES),
];

/** The exclusive lock the CLI takes for a read-modify-write (see lock.ts). */
export const LOCK_FILE = '.lock';

export const DATA_DIR_ENV = 'MODGATE_DATA_DIR';

/**
 * The data dir from the flag, else from MODGATE_DATA_DIR, as an absolute path with its links
 * resolved, once: /var/lib/modgate → /srv/modgate is a fine way to place it, and from here on
 * every file is opened inside the real folder, which is the one checked (data-dir-trust.ts).
 * A path that does not exist yet (before `init`) stays as given.
 */
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
  return realPathOrAsIs(resolve(chosen));
}

function realPathOrAsIs(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return path;
    throw error;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Checks that `dir` is an initialised data dir that modgate may trust: the folder exists,
 * identity.json and every other file are there, and data-dir-trust.ts finds nothing amiss.
 */
export async function assertDataDirReady(dir: string): Promise<void> {
  await assertInitialised(dir);
  await assertPermissions(dir);
}

export async function assertInitialised(dir: string): Promise<void> {
  const notInitialised = `${dir} is not an initialised modgate data dir; run \`modgate init --data-dir ${dir}\` first`;
  const folder = await statOrNull(dir);
  if (folder === null || !folder.isDirectory()) throw new StoreError('not_initialised', notInitialised);
  if ((await lstatOrNull(join(dir, DATA_FILES.identity))) === null) {
    throw new StoreError('not_initialised', notInitialised);
  }
  for (const name of DATA_FILE_NAMES) {
    if ((await lstatOrNull(join(dir, name))) === null) {
      throw new StoreError(
        'missing_file',
        `${join(dir, name)} is missing; run \`modgate init --data-dir ${dir}\` to recreate it`,
      );
    }
  }
}

/**
 * Refuses a data dir that data-dir-trust.ts finds a problem with: another owner, a link inside,
 * a folder looser than 0700 or a state file looser than 0600 (the journal, the audit log and the
 * webhooks' files included). All problems in one message, each with its fix; the code is the first one's.
 */
export async function assertPermissions(dir: string): Promise<void> {
  const uid = process.getuid?.();
  const problems = await findUntrusted(dir, {
    uid: uid ?? (await stat(dir)).uid, // no uids (Windows): the owner check has nothing to go on
    privateFiles: PRIVATE_FILE_NAMES,
  });
  const first = problems[0];
  if (first === undefined) return;
  throw new StoreError(ERROR_CODES[first.kind], describeProblems(problems));
}

const ERROR_CODES: Record<TrustProblem['kind'], StoreErrorCode> = {
  folder_mode: 'insecure_permissions',
  private_mode: 'insecure_permissions',
  writable: 'insecure_permissions',
  owner: 'untrusted_owner',
  symlink: 'symlink',
  file_type: 'wrong_file_type',
};

/** One line per problem; state files looser than 0600 share one `chmod 600` line, as before. */
function describeProblems(problems: readonly TrustProblem[]): string {
  const loose = problems.filter((problem) => problem.kind === 'private_mode').map((problem) => problem.path);
  const lines = problems
    .filter((problem) => problem.kind !== 'private_mode')
    .map((problem) =>
      problem.kind === 'symlink'
        ? symlinkMessage(problem.path)
        : `${problem.path} is ${problem.what}; fix it with: ${problem.fix}`,
    );
  if (loose.length > 0) {
    const which = loose.length === 1 ? `${loose[0]} is` : `${loose.join(', ')} are`;
    lines.push(`${which} accessible to other users; fix it with: chmod 600 ${loose.join(' ')}`);
  }
  return lines.join('\n');
}
