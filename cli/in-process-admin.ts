/**
 * The admin API in this process, for a command on a data dir no daemon serves (cli/admin-client.ts,
 * `withAdmin`): the daemon's own admin pipeline over the data dir
 * (daemon/admin/offline-services.ts), sent the requests the command would send to admin.sock and
 * read back the same way, so its answers, refusals and exit codes are the daemon's.
 */
import { openOfflineAdmin, type OfflineAdmin } from '../daemon/admin/offline-services.ts';
import { bodyText, type ApiRequest } from '../daemon/http/types.ts';
import type { Logger } from '../daemon/log/log.ts';
import type { DataDir } from '../daemon/store/data-dir.ts';
import type { AdminAnswer, AdminClient, AdminRequest } from './admin-client.ts';
import { errorOf } from './admin-errors.ts';
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';

class InProcessAdminClient implements AdminClient {
  readonly #admin: OfflineAdmin;
  readonly #dir: string;

  constructor(admin: OfflineAdmin, dir: string) {
    this.#admin = admin;
    this.#dir = dir;
  }

  async send(call: AdminRequest): Promise<AdminAnswer> {
    const response = await this.#admin.handle(requestOf(call));
    const text = response.body === null ? '' : bodyText(response.body);
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      throw new CliError(`the admin API answered ${response.status} with a body that is not JSON`);
    }
    const answer = { status: response.status, body };
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw errorOf(answer, this.#dir);
  }
}

/** Opens the in-process admin over `dataDir` (taking its daemon lock); close() lets go of both. */
export async function openInProcessAdmin(
  dataDir: DataDir,
  io: CliIo,
): Promise<{ client: AdminClient; close(): Promise<void> }> {
  const warn = (message: string) => io.stderr.write(`warning: ${message}\n`);
  const admin = await openOfflineAdmin(dataDir, { log: errorsOnly(warn), warn, now: () => io.now() });
  return { client: new InProcessAdminClient(admin, dataDir.path), close: () => admin.close() };
}

/** The request as admin.sock would receive it from curl. */
function requestOf(call: AdminRequest): ApiRequest {
  const body = call.body === undefined ? null : Buffer.from(JSON.stringify(call.body));
  const headers: Record<string, string> = { host: 'localhost', accept: 'application/json' };
  if (body !== null) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  return {
    method: call.method,
    url: `/admin/v1${call.path}`,
    headers,
    remoteAddress: '',
    hasBody: body !== null,
    readBody: () => Promise.resolve(body ?? Buffer.alloc(0)),
  };
}

/**
 * The pipeline's log as a command shows it: its request lines are the daemon's business, but an
 * error (an unexpected failure the answer only calls `internal`) is said, with its cause.
 */
function errorsOnly(say: (message: string) => void): Logger {
  const ignore = (): void => undefined;
  return {
    debug: ignore,
    info: ignore,
    warn: (message) => say(message),
    error: (message, fields) => {
      const cause = fields?.['error'];
      say(cause instanceof Error ? `${message}: ${cause.message}` : message);
    },
  };
}
