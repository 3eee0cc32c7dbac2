/**
 * The daemon's one connection to the group's database (docs/group.md, "When the database is down"): LISTEN and every
 * query share it, so an idle daemon holds exactly one. It connects, migrates the schema
 * (schema.ts), LISTENs for new sanctions, and tells its owner `onConnected`; when the connection
 * fails it reconnects with back-off (1 s doubling to 5 s), logging the failures while the wait
 * grows, then one a minute, and the return.
 *
 * Queries run one at a time through `use()`: a publication's transaction holds the connection
 * from BEGIN to COMMIT, so no other query lands inside it. Nothing here is awaited by a /v1
 * request.
 */
import pg from 'pg';
import type { Logger } from '../log/log.ts';
import { CHANNEL, migrate, SchemaTooNew } from './schema.ts';

/**
 * The reconnection back-off. Capped at 5 s, not longer: sanctions made during an outage are
 * published by the first attempt after the database returns, and the group's promise is all of
 * them everywhere within 10 s of it (docs/group.md, "When the database is down"). An attempt at a
 * dead address is one refused or timed-out connect, cheap for the database and the daemon alike.
 */
export const BACKOFF_MS = { first: 1_000, max: 5_000 };

/** While the back-off sits at its cap, one failure a minute is logged (metrics count them all). */
export const QUIET_LOG_MS = 60_000;

/** The wait after a failed attempt that waited `retryInMs`. */
export function nextBackoff(retryInMs: number): number {
  return Math.min(BACKOFF_MS.max, retryInMs * 2);
}

/**
 * Whether a failure is logged: every one while the wait still grows, then one per QUIET_LOG_MS,
 * so a database gone for a day writes about a thousand lines, not seventeen thousand.
 */
export function logsFailure(retryInMs: number, sinceLoggedMs: number): boolean {
  return retryInMs < BACKOFF_MS.max || sinceLoggedMs >= QUIET_LOG_MS;
}

/** How long connecting, and any one query, may take before the connection counts as failed. */
const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 15_000;

export interface GroupDatabaseOptions {
  databaseUrl: string;
  log: Logger;
  /** Connected (again) and migrated: register, publish what waits, read what was missed. */
  onConnected: (client: pg.Client) => Promise<void>;
  /** A NOTIFY on the sanctions channel: a server published; its payload ('' when none). */
  onNotify: (payload: string) => void;
  /** The connection is gone (before the back-off's next try). */
  onLost?: () => void;
  /** A connection attempt failed or the connection was lost (counted in metrics, group-observer.ts). */
  onFailure?: (error: Error) => void;
}

export class GroupDatabase {
  readonly #options: GroupDatabaseOptions;
  #client: pg.Client | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  #backoff = BACKOFF_MS.first;
  #failures = 0;
  /** When a failure was last logged (0: none since the last connection). */
  #loggedAt = 0;
  /** The queue of `use()` calls: each runs after the one before has settled. */
  #turn: Promise<unknown> = Promise.resolve();

  constructor(options: GroupDatabaseOptions) {
    this.#options = options;
  }

  get connected(): boolean {
    return this.#client !== null;
  }

  /**
   * The first connection, at start: resolves when connected and migrated, or when the database
   * cannot be reached (then the back-off goes on trying); rejects with SchemaTooNew, which the
   * daemon refuses to start on.
   */
  async start(): Promise<void> {
    const failure = await this.#connect();
    if (failure instanceof SchemaTooNew) throw failure;
  }

  /** Runs `work` with the connection when there is one, alone on it; null when there is none. */
  use<T>(work: (client: pg.Client) => Promise<T>): Promise<T | null> {
    const run = this.#turn.then(async () => {
      const client = this.#client;
      if (client === null) return null;
      return work(client);
    });
    this.#turn = run.catch(() => undefined);
    return run;
  }

  async close(last?: (client: pg.Client) => Promise<void>): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    if (last) await this.use(last).catch(() => undefined);
    await this.#turn;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  /** One attempt; on failure the next is scheduled. Returns the failure, or null when connected. */
  async #connect(): Promise<Error | null> {
    const client = new pg.Client({
      connectionString: this.#options.databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
      application_name: 'modgate',
    });
    // Until connected, an error is the attempt's; after, it is the connection's loss.
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await migrate(client);
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.#failed(error as Error);
      return error as Error;
    }
    client.on('notification', (message) => this.#options.onNotify(message.payload ?? ''));
    this.#client = client;
    if (this.#failures > 0)
      this.#options.log.info('group database connected again', {
        event: 'group_database_connected',
        failures: this.#failures,
      });
    this.#failures = 0;
    this.#loggedAt = 0;
    this.#backoff = BACKOFF_MS.first;
    await this.#options.onConnected(client).catch((error: unknown) =>
      this.#options.log.warn('group: catching up after connecting failed', {
        error: (error as Error).message,
      }),
    );
    return null;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    this.#options.onLost?.();
    this.#failed(new Error('the connection to the group database was lost'));
  }

  #failed(error: Error): void {
    this.#failures++;
    this.#options.onFailure?.(error);
    if (this.#closed) return;
    const retryInMs = this.#backoff;
    this.#backoff = nextBackoff(retryInMs);
    const now = Date.now();
    const tooNew = error instanceof SchemaTooNew;
    if (tooNew || logsFailure(retryInMs, now - this.#loggedAt)) {
      this.#loggedAt = now;
      this.#options.log[tooNew ? 'error' : 'warn'](
        'group database unreachable; sanctions made here wait in the outbox',
        {
          event: 'group_database_unreachable',
          error: error.message,
          retry_in_ms: retryInMs,
          failures: this.#failures,
        },
      );
    }
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#connect();
    }, retryInMs);
    this.#retry.unref();
  }
}
