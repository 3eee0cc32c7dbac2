/**
 * `modgate admin login-url`: asks the running daemon, over `<data-dir>/admin.sock`, for a
 * one-time sign-in code and prints the panel link that spends it (`http://HOST:PORT/login#CODE`;
 * docs/admin.md, "The panel"). Whoever can open the socket is the operator, so the socket is
 * the only place codes are minted. The link works once, for 5 minutes; the daemon keeps only the
 * code's hash and never logs it.
 */
import type { Command } from 'commander';
import { LoginCode } from '../daemon/admin/routes/session.ts';
import type { components } from '../panel/admin-schema.ts';
import { parsed } from './admin-answers.ts';
import { SocketAdminClient, adminClientFor, type AdminClient } from './admin-client.ts';
import { CliError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { openDataDirOf, withDataDirOption } from './options.ts';

export function registerLoginUrlCommand(admin: Command, io: CliIo): void {
  withDataDirOption(
    admin
      .command('login-url')
      .description('print a one-time link that signs a browser in to the panel (needs serve --admin-listen)'),
  )
    .option('--json', 'print one JSON object: code, url, expires_at')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const dataDir = await openDataDirOf(flags, io);
      const client = await adminClientFor(dataDir);
      if (client === null) {
        throw new CliError(
          `no modgate daemon serves ${dataDir.path}: a sign-in link comes from the running daemon (modgate serve)`,
          1,
          'daemon_not_running',
        );
      }
      const minted = await mintLoginCode(client);
      if (flags.json) return printJson(io, minted);
      if (minted.url === null) {
        throw new CliError(
          'the daemon has no admin TCP listener, so there is no panel to sign in to: start serve with --admin-listen 127.0.0.1:8790 (or [admin] listen)',
        );
      }
      printLines(io, `One-time sign-in link (valid until ${minted.expires_at}, works once):`, minted.url);
    });
}

/** POST /admin/v1/login-codes over the daemon's socket (also the demo's sign-in link). */
export async function mintLoginCode(
  admin: AdminClient | string,
): Promise<components['schemas']['AdminLoginCode']> {
  const client = typeof admin === 'string' ? new SocketAdminClient(admin) : admin;
  const answer = await client.send({ method: 'POST', path: '/login-codes', body: {} });
  return parsed(LoginCode(), answer.body, '/login-codes');
}
