/**
 * `modgate admin login-url`: asks the running daemon, over `<data-dir>/admin.sock`, for a
 * one-time sign-in code and prints the panel link that spends it (`http://HOST:PORT/login#CODE`;
 * docs/admin.md, "The panel"). Whoever can open the socket is the operator, so the socket is
 * the only place codes are minted. The link works once, for 5 minutes; the daemon keeps only the
 * code's hash and never logs it.
 */
import type { Command } from 'commander';
import { request } from 'node:http';
import { join } from 'node:path';
import { CliError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { openDataDirOf, withDataDirOption } from './options.ts';

export interface LoginCode {
  code: string;
  url: string | null;
  expires_at: string;
}

/** The longest answer read from the socket; a login code's is about 200 bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;
const TIMEOUT_MS = 10_000;

export function registerLoginUrlCommand(admin: Command, io: CliIo): void {
  withDataDirOption(
    admin
      .command('login-url')
      .description('print a one-time link that signs a browser in to the panel (needs serve --admin-listen)'),
  )
    .option('--json', 'print one JSON object: code, url, expires_at')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const dataDir = await openDataDirOf(flags, io);
      const minted = await mintLoginCode(join(dataDir.path, 'admin.sock'));
      if (flags.json) return printJson(io, minted);
      if (minted.url === null) {
        throw new CliError(
          'the daemon has no admin TCP listener, so there is no panel to sign in to: start serve with --admin-listen 127.0.0.1:8790 (or [admin] listen)',
        );
      }
      printLines(io, `One-time sign-in link (valid until ${minted.expires_at}, works once):`, minted.url);
    });
}

/** POST /admin/v1/login-codes over the socket (also the demo's sign-in link). */
export function mintLoginCode(socketPath: string): Promise<LoginCode> {
  return new Promise((resolve, reject) => {
    const body = '{}';
    const req = request(
      {
        socketPath,
        method: 'POST',
        path: '/admin/v1/login-codes',
        headers: { host: 'localhost', 'content-type': 'application/json', 'content-length': body.length },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.length > MAX_ANSWER_BYTES) req.destroy(new Error('the daemon answered too much'));
        });
        res.on('end', () => settle(res.statusCode ?? 0, text, resolve, reject));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('the daemon did not answer in time')));
    req.on('error', (error: NodeJS.ErrnoException) => reject(socketError(socketPath, error)));
    req.end(body);
  });
}

function settle(
  status: number,
  text: string,
  resolve: (code: LoginCode) => void,
  reject: (e: Error) => void,
) {
  try {
    const parsed = JSON.parse(text) as LoginCode & { error?: { code: string; message: string } };
    if (status === 201) return resolve(parsed);
    reject(new CliError(`the daemon refused: ${parsed.error?.message ?? `HTTP ${status}`}`));
  } catch {
    reject(new CliError(`the daemon answered HTTP ${status} with something not JSON`));
  }
}

function socketError(socketPath: string, error: NodeJS.ErrnoException): Error {
  if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') {
    return new CliError(`no daemon answers on ${socketPath}: is \`modgate serve\` running on this data dir?`);
  }
  if (error.code === 'EACCES') {
    return new CliError(`${socketPath} does not let this user in: run as the user modgate serve runs as`);
  }
  return new CliError(`could not ask the daemon on ${socketPath}: ${error.message}`);
}
