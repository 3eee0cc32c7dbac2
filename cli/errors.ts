/**
 * CLI errors and exit codes. Every failure ends as one line on stderr (or, under `--json`, one
 * `{"error":{"code","message"}}` object) and an exit code; stack traces are only printed when
 * MODGATE_DEBUG is set. docs/operations.md ("Exit codes") lists the same table for operators.
 *
 * | exit | meaning |
 * | 0 | success (also help and --version) |
 * | 1 | operational error: the data dir, the lock, a missing key, an address in use |
 * | 2 | usage or configuration error, which a retry cannot fix: a bad flag, a bad config file or
 * |   | environment variable, plain HTTP on a public address, files owned by another user, a
 * |   | data dir modgate does not trust (another owner, a link inside, loose permissions).
 * |   | The systemd units do not restart on it (RestartPreventExitStatus=2). |
 * | 3 | premium required: the server has no active premium plan (spec: 403 premium_required) |
 */
import { CommanderError } from 'commander';
import { AdminSocketInUse, AdminSocketPathTooLong } from '../daemon/admin/admin-socket.ts';
import { ConfigError } from '../daemon/config/config.ts';
import { ListenError } from '../daemon/listen-error.ts';
import { errnoCode, StoreError, type StoreErrorCode } from '../daemon/store/errors.ts';
import { listenFailureMessage } from './listen-failure.ts';
import { permissionMessage } from './permission-hint.ts';

export const EXIT_OK = 0;
export const EXIT_OPERATIONAL = 1;
export const EXIT_USAGE = 2;
export const EXIT_PREMIUM_REQUIRED = 3;

/** An error whose message is meant for the operator, with its exit code and a stable code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_OPERATIONAL,
    readonly code: string = 'failed',
  ) {
    super(message);
    this.name = 'CliError';
  }

  /** The text for the operator; a subclass may replay the command line (`sudo -u … modgate …`). */
  describe(argv: readonly string[]): string {
    void argv;
    return this.message;
  }
}

export class UsageError extends CliError {
  constructor(message: string, code = 'usage_error') {
    super(message, EXIT_USAGE, code);
    this.name = 'UsageError';
  }
}

export class PremiumRequiredError extends CliError {
  constructor(message: string) {
    super(message, EXIT_PREMIUM_REQUIRED, 'premium_required');
    this.name = 'PremiumRequiredError';
  }
}

export interface ErrorOutcome {
  readonly exitCode: number;
  /** A stable snake_case code, the `code` of the `--json` error object. */
  readonly code: string;
  /** The text for the operator; commander's own text (without `error: `) for a usage error. */
  readonly message: string;
  /** True when commander has printed the message already (plain output only). */
  readonly printed: boolean;
}

/** Store errors only the operator can fix (a retry, or a restart by systemd, cannot): exit 2. */
const SET_UP_ERRORS: ReadonlySet<StoreErrorCode> = new Set([
  'data_dir_required',
  'insecure_permissions',
  'untrusted_owner',
  'symlink',
  'wrong_file_type',
]);

/** What the failed command was: its argv (for the `sudo -u` line) and the environment. */
export interface FailureContext {
  readonly argv: readonly string[];
}

/** Maps anything thrown by a command to its exit code, code and message. */
export async function errorOutcome(error: unknown, context: FailureContext): Promise<ErrorOutcome> {
  if (error instanceof CommanderError) {
    // Commander printed its own message (or the help / version) through configureOutput.
    const exitCode = error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    return { exitCode, code: 'usage_error', message: error.message.replace(/^error: /, ''), printed: true };
  }
  const outcome = (exitCode: number, code: string, message: string): ErrorOutcome => ({
    exitCode,
    code,
    message,
    printed: false,
  });
  if (error instanceof CliError) return outcome(error.exitCode, error.code, error.describe(context.argv));
  if (error instanceof ConfigError) return outcome(EXIT_USAGE, 'config_invalid', error.message);
  if (error instanceof AdminSocketInUse) return outcome(EXIT_OPERATIONAL, 'already_running', error.message);
  if (error instanceof AdminSocketPathTooLong)
    return outcome(EXIT_USAGE, 'data_dir_path_too_long', error.message);
  if (error instanceof ListenError) {
    const failure = await listenFailureMessage(error);
    return outcome(failure.exitCode, failure.code, failure.message);
  }
  if (error instanceof StoreError) {
    const exitCode = SET_UP_ERRORS.has(error.code) ? EXIT_USAGE : EXIT_OPERATIONAL;
    return outcome(exitCode, error.code, error.message);
  }
  const errno = errnoCode(error);
  if (errno === 'EACCES' || errno === 'EPERM') {
    const message = permissionMessage(error as NodeJS.ErrnoException, context.argv);
    if (message !== null) return outcome(EXIT_USAGE, 'permission_denied', message);
  }
  const text = error instanceof Error ? error.message : String(error);
  return outcome(
    EXIT_OPERATIONAL,
    'internal',
    `unexpected failure: ${text} (set MODGATE_DEBUG=1 for details)`,
  );
}
