/**
 * The one error type of the data dir stores. Its message is written for the operator: it names
 * the file and the problem and, where there is one, the command that fixes it. Callers print
 * `message` as is; nothing in here is meant to surface as a stack trace.
 */
export type StoreErrorCode =
  /** Neither --data-dir nor MODGATE_DATA_DIR was given (a usage error). */
  | 'data_dir_required'
  /** The folder does not exist, is not a folder, or holds no identity.json. */
  | 'not_initialised'
  /** The data dir was initialised but one of its files has gone missing. */
  | 'missing_file'
  /** A file is not valid JSON or does not match its schema. */
  | 'invalid_file'
  /** The folder or a file is readable or writable by other users. */
  | 'insecure_permissions'
  /** The folder or something in it belongs to a user other than the one running modgate or root. */
  | 'untrusted_owner'
  /** Something inside the data dir is a symbolic link. */
  | 'symlink'
  /** Something inside the data dir is not of its kind: a pipe, socket or device, or a folder where a file belongs. */
  | 'wrong_file_type'
  /** Another modgate command holds the data dir lock for too long. */
  | 'locked'
  /** A daemon already serves the data dir (daemon.lock names its process). */
  | 'daemon_running'
  /** The file system refused a write (full, over quota, read-only): nothing was changed. */
  | 'write_failed';

/** Errno codes of a file system that refuses writes, which the operator fixes by freeing space. */
const REFUSED_WRITE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS']);

/**
 * `error` as a StoreError naming `path` when it is a file system refusing the write (a full disk,
 * a quota), else `error` itself: the operator frees space and sends the same change again.
 */
export function refusedWrite(error: unknown, path: string, folder: string): unknown {
  const code = errnoCode(error);
  if (code === undefined || !REFUSED_WRITE.has(code)) return error;
  const message = `${path} cannot be written (${(error as Error).message}); free space on its file system (df -h ${folder}) and send the change again`;
  return new StoreError('write_failed', message, { cause: error });
}

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** The errno code of a Node file-system error, or undefined for anything else. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}
