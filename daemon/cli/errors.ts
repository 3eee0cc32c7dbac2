/**
 * CLI errors and exit codes. Every failure ends as one line on stderr and an exit code; stack
 * traces are only printed when MODGATE_DEBUG is set.
 *
 * | exit | meaning |
 * | 0 | success (also help and --version) |
 * | 1 | operational error: the data dir, a file, the lock, a missing key |
 * | 2 | usage error: a bad or missing flag or argument |
 * | 3 | premium required: the server has no active premium plan (spec: 403 premium_required) |
 */
import { CommanderError } from 'commander';
import { StoreError } from '../store/errors.ts';

export const EXIT_OK = 0;
export const EXIT_OPERATIONAL = 1;
export const EXIT_USAGE = 2;
export const EXIT_PREMIUM_REQUIRED = 3;

/** An error whose message is meant for the operator, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_OPERATIONAL,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

export class PremiumRequiredError extends CliError {
  constructor(message: string) {
    super(message, EXIT_PREMIUM_REQUIRED);
    this.name = 'PremiumRequiredError';
  }
}

export interface ErrorOutcome {
  readonly exitCode: number;
  /** The line to print on stderr, or null when commander has printed it already. */
  readonly message: string | null;
}

/** Maps anything thrown by a command to its exit code and the line to print. */
export function errorOutcome(error: unknown): ErrorOutcome {
  if (error instanceof CommanderError) {
    // Commander printed its own message (or the help / version) through configureOutput.
    return { exitCode: error.exitCode === 0 ? EXIT_OK : EXIT_USAGE, message: null };
  }
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  if (error instanceof StoreError) {
    const exitCode = error.code === 'data_dir_required' ? EXIT_USAGE : EXIT_OPERATIONAL;
    return { exitCode, message: error.message };
  }
  const text = error instanceof Error ? error.message : String(error);
  return {
    exitCode: EXIT_OPERATIONAL,
    message: `unexpected failure: ${text} (set MODGATE_DEBUG=1 for details)`,
  };
}
