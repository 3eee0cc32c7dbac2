/**
 * The key lifecycle's refusals (daemon/store/key-admin.ts) as CLI errors: premium_required exits
 * 3 with the command that enables premium, an unknown key exits 1 naming `keys list`, a key that
 * cannot change exits 1, a value out of bounds is a usage error (2).
 */
import type { DataDir } from '../daemon/store/data-dir.ts';
import { KeyAdminError } from '../daemon/store/key-admin.ts';
import { CliError, PremiumRequiredError, UsageError } from './errors.ts';

/** Runs `task`, turning a KeyAdminError into the CLI error for it. */
export async function withKeyErrors<T>(dataDir: DataDir, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (!(error instanceof KeyAdminError)) throw error;
    throw cliErrorOf(error, dataDir.path);
  }
}

function cliErrorOf(error: KeyAdminError, dir: string): CliError {
  switch (error.code) {
    case 'premium_required':
      return new PremiumRequiredError(
        `premium_required: ${error.message}; ` +
          `enable it with \`modgate plan set --data-dir ${dir} --premium on\``,
      );
    case 'key_not_found':
      return new CliError(`${error.message} in ${dir} (see \`modgate keys list\`)`, 1, 'key_not_found');
    case 'invalid_input':
      return new UsageError(error.message);
    default:
      return new CliError(error.message, 1, error.code);
  }
}
