/**
 * The one way into the data dir (docs/architecture.md, "One way into the data dir"):
 * `DataDir.open(path)` resolves the folder, checks that it was initialised and that modgate may
 * trust it (owner, links, folder 0700, files 0600: data-dir-trust.ts, docs/data-dir.md), and then
 * reads or updates each data file and loads the daemon's snapshot. Also
 * here: where the data dir is (--data-dir or MODGATE_DATA_DIR); which files it holds is named in
 * data-dir-layout.ts and re-exported. Every error names the fix.
 *
 * Files are opened only by data-dir-fs.ts and trust is judged only by data-dir-trust.ts; this
 * module turns their findings into StoreErrors and puts the steps in order.
 */
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { lstatOrNull, statOrNull, symlinkMessage } from './data-dir-fs.ts';
import { findUntrusted, formatMode, type TrustProblem } from './data-dir-trust.ts';
import {
  ADMIN_FILES,
  DAEMON_LOCK_FILE,
  DATA_FILE_NAMES,
  DATA_FILES,
  PRIVATE_FILE_NAMES,
} from './data-dir-layout.ts';
import { adminTokensFile } from './admin-tokens.ts';
import { readDataFile, writeDataFile, type DataFile } from './data-file.ts';
import { errnoCode, refusedWrite, StoreError, type StoreErrorCode } from './errors.ts';
import { identityFile } from './identity.ts';
import { indexById, keysFile } from './keys-file.ts';
import { LiveSnapshot, type Snapshot, type SnapshotPart } from './live-snapshot.ts';
import { withDataDirLock, type LockOptions } from './lock.ts';
import { modKeysFile } from './mod-keys.ts';
import { stateFile } from './state.ts';

export { formatMode, lstatOrNull, statOrNull };
export {
  ADMIN_FILES,
  DATA_FILES,
  LOCK_FILE,
  PRIVATE_FILE_NAMES,
  RECORD_FILE_NAMES,
  RECORD_FILES,
  WEBHOOK_FILES,
} from './data-dir-layout.ts';

/**
 * An initialised data dir that passed the trust check when it was opened. Open one per command
 * (or per daemon): a read or an update trusts the check `open` made moments before, while
 * snapshot() checks again, since a daemon reloads it for days after opening (docs/data-dir.md).
 */
export class DataDir {
  private constructor(
    /** The folder, absolute and with its links resolved (see resolveDataDir). */
    readonly path: string,
  ) {}

  /** Resolves `path`, then refuses a folder that is not initialised or not trusted (StoreError). */
  static async open(path: string): Promise<DataDir> {
    const dataDir = new DataDir(realPathOrAsIs(resolve(path)));
    await assertDataDirReady(dataDir.path);
    return dataDir;
  }

  /**
   * Resolves `path` for a command that only talks to the daemon serving it (`modgate reload`):
   * checks what reaching the daemon safely needs, the folder, its admin.sock and daemon.lock (as
   * open() does: this user's or root's, no one else may write), and not the data files, which are
   * the daemon's to judge. So a reload reaches the daemon when a data file is broken, loose or
   * missing, and the daemon reopens its audit log and names the file in its refusal.
   */
  static async openToReachDaemon(path: string): Promise<DataDir> {
    const dataDir = new DataDir(realPathOrAsIs(resolve(path)));
    const folder = await statOrNull(dataDir.path);
    if (folder === null || !folder.isDirectory()) {
      throw new StoreError('not_initialised', `${dataDir.path} is not a modgate data dir (no such folder)`);
    }
    await assertPermissions(dataDir.path, [ADMIN_FILES.socket, DAEMON_LOCK_FILE]);
    return dataDir;
  }

  /** One data file, parsed into its domain object (a StoreError names a missing or broken file). */
  read<T>(file: DataFile<T>): Promise<T> {
    return readDataFile(this.path, file);
  }

  /**
   * Reads `file`, applies `change` and writes the result, all while holding the lock, so a
   * concurrent command cannot slip its own update in between. `change` may throw to abort. A
   * file system that refuses the write (full, over quota) is a StoreError `write_failed` naming
   * the file: the admin API's 409 (docs/admin.md, "How a request is handled").
   */
  update<T>(file: DataFile<T>, change: (current: T) => T, lockOptions?: LockOptions): Promise<Update<T>> {
    return withDataDirLock(
      this.path,
      async () => {
        const before = await readDataFile(this.path, file);
        const after = change(before);
        const changed = JSON.stringify(file.serialize(after)) !== JSON.stringify(file.serialize(before));
        if (changed) await writeDataFile(this.path, file, after);
        return { before, after, changed };
      },
      lockOptions,
    ).catch((error: unknown) => {
      throw refusedWrite(error, join(this.path, file.name), this.path);
    });
  }

  /**
   * Checks the folder again, then loads a snapshot; throws a StoreError naming the file when one
   * is missing, broken or loose.
   */
  async snapshot(now: Date = new Date()): Promise<Snapshot> {
    await assertDataDirReady(this.path);
    const [identity, state, keys, modKeys, adminTokens] = await Promise.all([
      readDataFile(this.path, identityFile),
      readDataFile(this.path, stateFile),
      readDataFile(this.path, keysFile),
      readDataFile(this.path, modKeysFile),
      readDataFile(this.path, adminTokensFile),
    ]);
    return {
      identity,
      state,
      keysById: indexById(keys),
      adminTokensById: indexById(adminTokens),
      trustedModKeys: modKeys.trusted.map((entry) => entry.publicKey),
      loadedAt: now,
    };
  }

  /**
   * A snapshot for the CLI's in-process admin API (daemon/admin/offline-services.ts): like
   * snapshot(), but a part whose file cannot be used throws that file's StoreError when it is
   * read, instead of refusing the whole load. So a command that touches only sound files is never
   * refused for another file's fault, as an admin write on a running daemon reads back only the
   * file it wrote (refreshed()); the command that reads the broken part is refused naming it.
   * identity.json must be sound: nothing works without it.
   */
  async partialSnapshot(now: Date = new Date()): Promise<Snapshot> {
    await assertDataDirReady(this.path);
    const identity = await readDataFile(this.path, identityFile);
    const parts = await Promise.allSettled([
      readDataFile(this.path, stateFile),
      readDataFile(this.path, keysFile).then(indexById),
      readDataFile(this.path, adminTokensFile).then(indexById),
      readDataFile(this.path, modKeysFile).then((modKeys) => modKeys.trusted.map((entry) => entry.publicKey)),
    ]);
    const names = ['state', 'keysById', 'adminTokensById', 'trustedModKeys'] as const;
    const snapshot: PropertyDescriptorMap = {
      identity: { value: identity, enumerable: true },
      loadedAt: { value: now, enumerable: true },
    };
    parts.forEach((part, i) => {
      const name = names[i] as (typeof names)[number];
      snapshot[name] =
        part.status === 'fulfilled'
          ? { value: part.value, enumerable: true }
          : { get: () => rethrow(part.reason), enumerable: true };
    });
    return Object.defineProperties({}, snapshot) as Snapshot;
  }

  /** A LiveSnapshot over partialSnapshot(), for the CLI's in-process admin API. */
  async loadPartial(): Promise<LiveSnapshot> {
    return new LiveSnapshot(this, await this.partialSnapshot());
  }

  /**
   * `snapshot` with one part read again from its file, the others as they were: what an admin
   * write applies, so that it neither fails on nor picks up another file's hand edit (those
   * count from the next reload). Throws a StoreError naming the file when it cannot be used.
   */
  async refreshed(snapshot: Snapshot, part: SnapshotPart): Promise<Snapshot> {
    switch (part) {
      case 'state':
        return withPart(snapshot, { state: await this.read(stateFile) });
      case 'keys':
        return withPart(snapshot, { keysById: indexById(await this.read(keysFile)) });
      case 'adminTokens':
        return withPart(snapshot, { adminTokensById: indexById(await this.read(adminTokensFile)) });
    }
  }

  /**
   * Loads the first snapshot for a daemon to serve from; LiveSnapshot.reload() replaces it
   * (after an admin write, `modgate reload`, SIGHUP). Nothing polls the files.
   */
  async load(): Promise<LiveSnapshot> {
    return new LiveSnapshot(this, await this.snapshot());
  }
}

export interface Update<T> {
  readonly before: T;
  readonly after: T;
  /** False when `change` returned an equal value; nothing was written then. */
  readonly changed: boolean;
}

export type { Snapshot, SnapshotPart } from './live-snapshot.ts';

/**
 * `snapshot` with `part` in place of what it had: the property descriptors are copied, not the
 * values, so a part that partialSnapshot() could not read stays a getter that throws.
 */
function withPart(snapshot: Snapshot, part: Partial<Snapshot>): Snapshot {
  return Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(snapshot), ...Object.getOwnPropertyDescriptors(part) },
  ) as Snapshot;
}

function rethrow(reason: unknown): never {
  throw reason;
}

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
export async function assertPermissions(dir: string, only?: readonly string[]): Promise<void> {
  const uid = process.getuid?.();
  const found = await findUntrusted(dir, {
    uid: uid ?? (await stat(dir)).uid, // no uids (Windows): the owner check has nothing to go on
    privateFiles: PRIVATE_FILE_NAMES,
    sockets: [ADMIN_FILES.socket],
  });
  // `only`: whether the folder and these entries of it can be trusted at all (owner, who may
  // write, links); their modes and the other files are not this caller's to judge.
  const judged = only === undefined ? null : new Set([dir, ...only.map((name) => join(dir, name))]);
  const problems =
    judged === null
      ? found
      : found.filter((problem) => judged.has(problem.path) && TRUST_KINDS.has(problem.kind));
  const first = problems[0];
  if (first === undefined) return;
  throw new StoreError(ERROR_CODES[first.kind], describeProblems(problems));
}

/** Problems that make a folder or file untrustworthy, not merely looser than it should be. */
const TRUST_KINDS = new Set<TrustProblem['kind']>(['owner', 'writable', 'symlink', 'file_type']);

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
