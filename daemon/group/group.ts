/**
 * Group mode's core (docs/group.md): this daemon as one server of a group that shares its
 * moderation through PostgreSQL. Started by the daemon only when the config file has `[group]`,
 * through a dynamic import, so a lone daemon never loads it or the database client.
 *
 * Module API (for the routes, events and metrics built on it):
 * - `Group.start(options)`: opens the outbox, connects (creating or upgrading the schema),
 *   registers this server; rejects with SchemaTooNew (the daemon exits 2). An unreachable
 *   database is no failure: the daemon starts, and the connection is retried with back-off.
 * - `observeOp(op, args, result)`: a moderation op's successful answer on this server (the /v1
 *   routes and the admin game routes, through the pipeline's ModCalls); resolves once a new
 *   sanction is in the outbox (a local fsync), never waiting on the database.
 * - `status()`: every server of the group (`GroupStatus`), from the database, or as last read
 *   when it is unreachable.
 * - `failures()`: the sanctions this server's game refused (for `group.sanction.failed`).
 * - `close()`: marks this server's daemon down and disconnects.
 *
 * Publishing: each sanction goes to the outbox first (outbox.ts), then into the group's log in
 * outbox order, one transaction each (publish-and-notify, below). Receiving: on a NOTIFY (whose
 * payload carries the row, applied as it is when it follows the cursor: notice.ts), on
 * (re)connecting, when the game link comes up, and once a minute while idle, the rows after this
 * server's cursor are applied through the mod link with what time they have left, up to WINDOW
 * at once, one player's in id order (apply-window.ts), and the cursor moves past a row once the
 * game has answered it and every row before it.
 */
import type pg from 'pg';
import type { ModLinkServer } from '../../protocol/link-server.ts';
import { LinkCallError } from '../../protocol/link-calls.ts';
import type { OpName } from '../../protocol/ops/index.ts';
import type { SanctionKind } from '../config/config.ts';
import type { EventLog, StoredEvent } from '../events/types.ts';
import type { Logger } from '../log/log.ts';
import { applyWindow, type WindowItem } from './apply-window.ts';
import { GroupCapture } from './group-capture.ts';
import { GroupDatabase } from './group-database.ts';
import { GroupFailures, type FailedSanction } from './group-failures.ts';
import { GroupOutbox, OutboxFull, type ApplyingKey, type SeenNote } from './outbox.ts';
import {
  applyArgs,
  fromEvent,
  fromOp,
  kindOf,
  type Sanction,
  type SanctionRow,
  type Seen,
} from './sanction.ts';
import { fromNotice, markSuperseded, toNotice, type Announced } from './notice.ts';
import { CHANNEL, PUBLISH_LOCK } from './schema.ts';
import type { GroupObserver } from './group-observer.ts';

/** `[group]` as the daemon takes it (daemon/config/settings.ts). */
export interface GroupSettings {
  databaseUrl: string;
  /** This server's name in the group; default: the data dir's server name, else its id. */
  name?: string;
  share: readonly SanctionKind[];
  accept: readonly SanctionKind[];
}

export interface GroupOptions extends Omit<GroupSettings, 'name'> {
  name: string;
  dataDir: string;
  serverId: string;
  link: ModLinkServer;
  /**
   * The event log, for the mod's moderation events (made in game, or a squad ban's members):
   * read again at start from where the outbox says the capture was, then followed live.
   */
  events: Pick<EventLog, 'subscribe' | 'readAfter' | 'lastId'>;
  log: Logger;
  now?: () => number;
  /** Told of each sanction applied or refused here and of each database failure (events, metrics). */
  observer?: GroupObserver;
  /**
   * Tests only (MODGATE_TEST_HOLD_GROUP_CAPTURE, docs/group.md, "Testing"): live mod events are
   * left unread, as by a daemon killed right after their fsync; the next start reads them.
   */
  holdCapture?: boolean;
}

/** One server as `GET /admin/v1/group` and `modgate group status` show it. */
export interface GroupServer {
  name: string;
  server_id: string;
  /** Its daemon said so within the last IDLE_MS × 2.5. */
  daemon_up: boolean;
  link_up: boolean;
  last_seen_at: string;
  /** Sanctions after its cursor that it would apply. */
  pending: number;
}

export interface GroupStatus {
  /** Whether this daemon is connected to the group's database now (else `servers` is as last read). */
  database_connected: boolean;
  servers: GroupServer[];
}

export type { FailedSanction } from './group-failures.ts';

/** The idle heartbeat and catch-up read: at most once a minute (docs/group.md, "When the database is down"). */
export const IDLE_MS = 60_000;
const PAGE = 200;
/**
 * Rows of different players in the game at once while receiving (apply-window.ts): enough to
 * hide the game's round trip and the outbox's fsync, few enough that a game is not flooded.
 */
export const WINDOW = 32;
/** Events read per page when the capture catches up with the event log at start. */
const EVENTS_PAGE = 1_000;

export class Group {
  readonly #options: GroupOptions;
  readonly #outbox: GroupOutbox;
  readonly #capture: GroupCapture;
  readonly #database: GroupDatabase;
  readonly #now: () => number;
  readonly #failures: GroupFailures;
  #cursor = 0n;
  /** The last event the capture has dealt with (all before it too): the outbox's `read`. */
  #eventsRead = 0;
  /** The capture's work, one event after the other, so `#eventsRead` only ever moves past what is done. */
  #capturing: Promise<void> = Promise.resolve();
  #lastStatus: GroupServer[] = [];
  #timer: NodeJS.Timeout | null = null;
  #publishing: Promise<void> | null = null;
  #receiving: Promise<void> | null = null;
  #receiveAgain = false;
  /** Rows announced in NOTIFY payloads and not yet applied, oldest first (notice.ts). */
  #announcements: Announced[] = [];
  /** Rows after the cursor already done (a window stopped by a gap before them): not sent again. */
  readonly #doneAhead = new Set<string>();
  readonly #unwire: (() => void)[] = [];

  private constructor(options: GroupOptions, outbox: GroupOutbox, failures: GroupFailures) {
    this.#options = options;
    this.#outbox = outbox;
    this.#failures = failures;
    this.#now = options.now ?? Date.now;
    this.#capture = new GroupCapture(this.#now);
    this.#capture.restore(outbox.seen);
    this.#database = new GroupDatabase({
      databaseUrl: options.databaseUrl,
      log: options.log,
      onConnected: (client) => this.#connected(client),
      onNotify: (payload) => this.#announced(payload),
      onFailure: () => options.observer?.databaseError(),
    });
  }

  static async start(options: GroupOptions): Promise<Group> {
    const outbox = await GroupOutbox.open(options.dataDir, options.now);
    const failures = await GroupFailures.open(options.dataDir).catch(async (error: unknown) => {
      await outbox.close(); // a start that fails leaves no file open (daemon/opened-so-far.ts)
      throw error;
    });
    const group = new Group(options, outbox, failures);
    group.#follow();
    try {
      await group.#database.start();
    } catch (error) {
      await group.close();
      throw error;
    }
    group.#wire();
    return group;
  }

  /**
   * Reads the mod's moderation events the capture had not dealt with before the last stop (a
   * kill -9 between an event's fsync and its outbox line), then follows the log live. A first
   * start begins at the log's end: what the game did before joining the group is not published.
   */
  #follow(): void {
    const { events } = this.#options;
    this.#eventsRead = this.#outbox.readPosition ?? events.lastId();
    const replay = this.#replayEvents(this.#eventsRead, events.lastId());
    // Subscribed in the same turn as the read above, so no event falls between the two; one
    // delivered again live is skipped by its id.
    this.#unwire.push(events.subscribe((event) => this.#queueEvent(event, false)));
    this.#capturing = replay;
  }

  /**
   * The events after `after` up to `end` (the log's last at the subscription: those after it come
   * live), a page at a time, each dealt with before the next is read: there may be many.
   */
  async #replayEvents(after: number, end: number): Promise<void> {
    const { events, log } = this.#options;
    for (let from = after; ;) {
      const page = events.readAfter(from, EVENTS_PAGE);
      if (!Array.isArray(page)) {
        log.warn('group: events before the capture caught up were dropped by retention', {
          event: 'group_events_gone',
          read: from,
          oldest: page.oldestId,
        });
        from = page.oldestId - 1;
        continue;
      }
      const unread = page.filter((event) => event.id <= end);
      for (const event of unread) await this.#handleEvent(event, true);
      if (unread.length < page.length || page.length === 0) break;
      from = page.at(-1)?.id ?? from;
    }
    await this.#outbox.settle().catch(() => undefined);
    await this.#outbox.read(this.#eventsRead).catch(() => undefined);
  }

  #queueEvent(event: StoredEvent, replayed: boolean): void {
    if (this.#options.holdCapture) return;
    this.#capturing = this.#capturing.then(() => this.#handleEvent(event, replayed));
  }

  async #handleEvent(event: StoredEvent, replayed: boolean): Promise<void> {
    if (event.id <= this.#eventsRead) return;
    const kept = await this.#observeEvent(event, replayed).catch(() => false);
    this.#eventsRead = event.id;
    if (kept) await this.#outbox.read(event.id).catch(() => undefined);
  }

  #wire(): void {
    const { link } = this.#options;
    const onConnect = () => {
      void this.#heartbeat();
      this.#receive();
    };
    const onDisconnect = () => void this.#heartbeat();
    link.on('connect', onConnect);
    link.on('disconnect', onDisconnect);
    this.#unwire.push(() => {
      link.off('connect', onConnect);
      link.off('disconnect', onDisconnect);
    });
    this.#timer = setInterval(() => {
      void this.#outbox.read(this.#eventsRead).catch(() => undefined);
      void this.#heartbeat();
      this.#receive();
      this.#publish();
    }, IDLE_MS);
    this.#timer.unref();
  }

  /** See the module comment; never rejects (a failure is logged). */
  async observeOp(op: OpName, args: unknown, result: unknown): Promise<void> {
    const actor = (args as { actor?: { source?: string } }).actor;
    if (actor?.source === 'group') return; // applied from the group: never published back
    let seen: Seen | null;
    try {
      seen = fromOp(op, args as never, result as never, new Date(this.#now()));
    } catch {
      return; // not a moderation answer this module understands
    }
    if (seen) await this.#keep(seen);
  }

  /**
   * A mod event: true when it was a moderation change (kept, or recognised). One read again at
   * start for a player whose application from the group was under way at the stop is the
   * group's own, as it would have been live.
   */
  async #observeEvent(event: StoredEvent, replayed: boolean): Promise<boolean> {
    const seen = fromEvent(event.type, event.data, new Date(this.#now()));
    if (seen === null) return false;
    const { action, platform_id: platformId } = seen.sanction;
    const key: ApplyingKey = `${kindOf(action)} ${platformId}`;
    if (this.#capture.isApplying(action, platformId) || (replayed && this.#outbox.unsettled.has(key))) {
      this.#capture.remember(action, platformId, seen.signature);
      return true;
    }
    await this.#keep(seen);
    return true;
  }

  /** A sighting: new and shared → into the outbox (fsync'd), then published in the background. */
  async #keep({ sanction, signature }: Seen): Promise<void> {
    if (!this.#capture.remember(sanction.action, sanction.platform_id, signature)) return;
    if (!this.#options.share.includes(kindOf(sanction.action))) return;
    try {
      await this.#outbox.add({ ...sanction, signature });
    } catch (error) {
      const full = error instanceof OutboxFull;
      this.#options.log.error(
        full
          ? 'group outbox full: a sanction is not shared'
          : 'group outbox write failed: a sanction is kept in memory and written again until it fits',
        {
          event: 'group_outbox_failed',
          action: sanction.action,
          platform_id: sanction.platform_id,
          error: (error as Error).message,
        },
      );
      if (full) return;
    }
    this.#publish();
  }

  status(): Promise<GroupStatus> {
    return this.#database
      .use(async (client) => {
        const { rows } = await client.query<GroupServer>(STATUS_QUERY, [(IDLE_MS * 2.5) / 1000]);
        this.#lastStatus = rows.map((row) => ({
          ...row,
          pending: Number(row.pending),
          last_seen_at: new Date(row.last_seen_at).toISOString(),
        }));
        return { database_connected: true, servers: this.#lastStatus };
      })
      .catch(() => null)
      .then((status) => status ?? { database_connected: false, servers: this.#lastStatus });
  }

  /** Whether the group's database is connected now. */
  get connected(): boolean {
    return this.#database.connected;
  }

  /** This server's id in the group (identity.json). */
  get serverId(): string {
    return this.#options.serverId;
  }

  /**
   * Runs `work` alone on the group's connection (group-sanctions.ts reads the log with it);
   * null when the database is unreachable now.
   */
  query<T>(work: (client: pg.Client) => Promise<T>): Promise<T | null> {
    return this.#database.use(work);
  }

  /**
   * Publishes a sanction made here other than by a moderation op (a lift from the admin API):
   * through the outbox like any other, so it is durable and recognised when the game reports it.
   */
  publish(seen: Seen): Promise<void> {
    return this.#keep(seen);
  }

  /** The sanctions from the group this server's game refused, oldest first (kept across restarts). */
  failures(): readonly FailedSanction[] {
    return this.#failures.list;
  }

  /** Sanctions waiting in the outbox to be published. */
  get outboxSize(): number {
    return this.#outbox.size;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    for (const unwire of this.#unwire.splice(0)) unwire();
    await this.#capturing;
    await this.#publishing;
    await this.#receiving;
    await this.#failures.close().catch(() => undefined);
    await this.#outbox.read(this.#eventsRead).catch(() => undefined);
    await this.#database.close(async (client) => {
      await client.query(
        'UPDATE modgate.servers SET daemon_up = false, link_up = false, last_seen_at = now() WHERE server_id = $1',
        [this.#options.serverId],
      );
    });
    await this.#outbox.close();
  }

  /** (Re)connected: register, then publish what waits and read what was missed. */
  async #connected(client: pg.Client): Promise<void> {
    const { serverId, name, accept, link } = this.#options;
    const { rows } = await client.query<{ applied_cursor: string }>(
      `INSERT INTO modgate.servers (server_id, name, daemon_up, link_up, last_seen_at, accept)
       VALUES ($1, $2, true, $3, now(), $4)
       ON CONFLICT (server_id) DO UPDATE SET name = $2, daemon_up = true, link_up = $3, last_seen_at = now(), accept = $4
       RETURNING applied_cursor`,
      [serverId, name, link.peer !== null, [...accept]],
    );
    this.#cursor = BigInt(rows[0]?.applied_cursor ?? '0');
    this.#announcements = []; // what was announced before the loss may have gaps: read the log
    this.#publish();
    this.#receive();
  }

  async #heartbeat(): Promise<void> {
    await this.#database
      .use((client) =>
        client.query(
          'UPDATE modgate.servers SET daemon_up = true, link_up = $2, last_seen_at = now() WHERE server_id = $1',
          [this.#options.serverId, this.#options.link.peer !== null],
        ),
      )
      .catch(() => undefined); // the connection's loss is logged by GroupDatabase
  }

  /** Publishes the outbox in order; one run at a time, started again when more came meanwhile. */
  #publish(): void {
    if (this.#publishing) return;
    this.#publishing = this.#publishAll().finally(() => {
      this.#publishing = null;
    });
  }

  /** Until the outbox is empty (what is added meanwhile included) or the connection is gone. */
  async #publishAll(): Promise<void> {
    for (let sanction = this.#outbox.first(); sanction; sanction = this.#outbox.first()) {
      const published = await this.#database
        .use((client) =>
          publishOne(client, { id: this.#options.serverId, name: this.#options.name }, sanction),
        )
        .catch((error: unknown) => this.#refused(sanction, error));
      if (published === null) return; // no connection: the reconnection publishes the rest
      await this.#outbox.done(sanction.local_id).catch(() => undefined); // a repeat is a no-op
    }
  }

  /**
   * A publication that failed: the connection's loss (null: stop, the reconnection goes on), or
   * a refusal by the database itself, which has a SQLSTATE and would refuse forever (true: the
   * sanction is dropped, loudly, so the ones after it are not held behind it).
   */
  #refused(sanction: Sanction, error: unknown): true | null {
    if (!isRefusal(error)) return null;
    this.#options.log.error('group: the database refused a sanction; it is not shared', {
      event: 'group_publish_refused',
      local_id: sanction.local_id,
      error: (error as Error).message,
    });
    return true;
  }

  /** Reads and applies what came after the cursor; one run at a time, again if asked meanwhile. */
  #receive(): void {
    if (this.#receiving) {
      this.#receiveAgain = true;
      return;
    }
    this.#receiving = (async () => {
      do {
        this.#receiveAgain = false;
        await this.#receivePages().catch((error: unknown) => {
          this.#options.observer?.databaseError();
          this.#options.log.warn('group: reading sanctions failed', { error: (error as Error).message });
        });
      } while (this.#receiveAgain);
    })().finally(() => {
      this.#receiving = null;
    });
  }

  async #receivePages(): Promise<void> {
    for (;;) {
      if (this.#options.link.peer === null) return; // the game is offline: resume from the cursor later
      const started = this.#now();
      let queried = started;
      const rows =
        this.#followingAnnounced() ??
        (await this.#database.use(async (client) => {
          queried = this.#now();
          return this.#queried(
            (await client.query<SanctionRow>(ROWS_QUERY, [this.#cursor.toString(), PAGE])).rows,
          );
        }));
      if (rows === null || rows.length === 0) return;
      const read = this.#now();
      const before = this.#cursor;
      const peak = await this.#applyPage(rows);
      const applied = this.#now();
      if (this.#cursor !== before) await this.#saveCursor();
      this.#logPage(rows, peak, { started, queried, read, applied, saved: this.#now() });
      if (this.#cursor === before || rows.length < PAGE) return;
    }
  }

  /**
   * One page through the window (apply-window.ts): the cursor moves past the rows done without a
   * gap; rows done after a gap (the game went away meanwhile) are remembered, so they are not sent
   * again while this daemon runs. Returns the most rows that were in the game at once.
   */
  async #applyPage(rows: readonly SanctionRow[]): Promise<number> {
    const items = rows.map((row) => this.#application(row));
    const { prefix, done, peak } = await applyWindow(items, WINDOW, (keys) =>
      // Noted before the game is told, so an event of it read again after a kill -9 is known as
      // the group's own (outbox.ts); a failed note only weakens that, never the application.
      this.#outbox.applying(...(keys as ApplyingKey[])).catch(() => undefined),
    );
    if (prefix > 0) this.#cursor = BigInt((rows[prefix - 1] as SanctionRow).id);
    for (const id of this.#doneAhead) if (BigInt(id) <= this.#cursor) this.#doneAhead.delete(id);
    rows.forEach((row, index) => {
      if (index >= prefix && done[index]) this.#doneAhead.add(row.id);
    });
    return peak;
  }

  /** A row's application, or null when it needs none (see #applyRow for what is skipped). */
  #application(row: SanctionRow): WindowItem | null {
    const { serverId, accept } = this.#options;
    if (row.origin_server === serverId || !accept.includes(row.kind) || row.superseded) return null;
    if (this.#doneAhead.has(row.id)) return null;
    return { key: `${row.kind} ${row.platform_id}`, start: () => this.#applyRow(row) };
  }

  /**
   * Where one page's time went, at debug level (bench/group.ts reads it, docs/performance.md,
   * "Group mode"): waiting for the connection, the query, the game's answers, saving the cursor;
   * and the most rows the window had in the game at once.
   */
  #logPage(
    rows: readonly SanctionRow[],
    peak: number,
    at: Record<'started' | 'queried' | 'read' | 'applied' | 'saved', number>,
  ): void {
    this.#options.log.debug('group: page applied', {
      event: 'group_receive_page',
      rows: rows.length,
      first_id: rows[0]?.id,
      in_flight_peak: peak,
      started_at: at.started,
      wait_ms: at.queried - at.started,
      query_ms: at.read - at.queried,
      apply_ms: at.applied - at.read,
      save_ms: at.saved - at.applied,
    });
  }

  /** A NOTIFY: its row (when it carries one) is kept for the receive run, which is started. */
  #announced(payload: string): void {
    const row = fromNotice(payload);
    if (row !== null) {
      this.#announcements.push(row);
      if (this.#announcements.length > PAGE) this.#announcements.shift(); // the log has them all
    }
    this.#receive();
  }

  /**
   * The announced rows that follow the cursor without a gap (each names the row before it), or
   * null when the first does not (a row announced before a reconnection, one too big for a
   * payload, none at all): the log is read then. Saves every server a query per sanction.
   */
  #followingAnnounced(): SanctionRow[] | null {
    this.#announcements = this.#announcements.filter((row) => BigInt(row.id) > this.#cursor);
    const rows: SanctionRow[] = [];
    let last = this.#cursor;
    for (const { previous, ...row } of this.#announcements) {
      if (BigInt(previous) !== last) break;
      rows.push(row);
      last = BigInt(row.id);
    }
    if (rows.length === 0) {
      this.#announcements = [];
      return null;
    }
    this.#options.observer?.received('notice', rows.length);
    return markSuperseded(rows);
  }

  /** Rows read by a query of the log, counted as such (docs/metrics.md, "Group mode"). */
  #queried(rows: SanctionRow[]): SanctionRow[] {
    this.#options.observer?.received('query', rows.length);
    return rows;
  }

  async #saveCursor(): Promise<void> {
    await this.#database.use((client) =>
      client.query(
        'UPDATE modgate.servers SET applied_cursor = GREATEST(applied_cursor, $2) WHERE server_id = $1',
        [this.#options.serverId, this.#cursor.toString()],
      ),
    );
  }

  /**
   * One row, its `applying` note already on disk (#applyPage): applied, skipped or refused by the
   * game (true: done); false when the game is unreachable.
   */
  async #applyRow(row: SanctionRow): Promise<boolean> {
    const key: ApplyingKey = `${row.kind} ${row.platform_id}`;
    const settled = this.#capture.applying(row.action, row.platform_id);
    let note: SeenNote | null = null;
    try {
      // A change of this player made here and not yet published will come later in the group's
      // order, so it wins: applying this older row now would undo it here alone.
      if (this.#outbox.has(row.platform_id, row.kind)) return true;
      const actor = {
        key_id: `group:${row.origin_server}`,
        name: row.actor.name,
        platform_id: row.actor.platform_id,
        social_id: row.actor.social_id,
      };
      const sanction = { ...row, expires_at: row.expires_at?.toISOString() ?? null };
      const call = applyArgs(sanction, actor, this.#now());
      if (call === null) return true; // run out already: nothing to apply
      // The op id is the row's, so a repeat after a kill -9 (before the cursor moved) is applied
      // once by the game (PROTOCOL §6.4) and answers the first result.
      const result = await this.#options.link.call(call.op, call.args as never, { opId: `group.${row.id}` });
      const seen = fromOp(call.op, call.args as never, result as never, new Date(this.#now()));
      if (seen) {
        this.#capture.remember(row.action, row.platform_id, seen.signature);
        note = {
          action: row.action,
          platform_id: row.platform_id,
          signature: seen.signature,
          at: this.#now(),
        };
      }
      this.#options.observer?.applied(row, this.#now());
      return true;
    } catch (error) {
      if (!(error instanceof LinkCallError) || error.kind !== 'remote') return false;
      await this.#refusedByGame(row, error.message);
      return true;
    } finally {
      settled();
      await this.#outbox.applied(key, note).catch(() => undefined);
    }
  }

  /** The game refused a row: kept (group-failures.ts), logged, and told to the observer. */
  async #refusedByGame(row: SanctionRow, error: string): Promise<void> {
    const failed: FailedSanction = {
      id: row.id,
      action: row.action,
      platform_id: row.platform_id,
      origin_server: row.origin_server,
      error,
      at: new Date(this.#now()).toISOString(),
    };
    this.#options.log.warn('group: the game refused a sanction from the group', {
      event: 'group_sanction_failed',
      ...failed,
    });
    await this.#failures.add(failed).catch((reason: unknown) =>
      this.#options.log.error('group: a refused sanction could not be kept on disk', {
        event: 'group_failures_write_failed',
        error: (reason as Error).message,
      }),
    );
    this.#options.observer?.failed(row, error, this.#now());
  }
}

/**
 * Whether the database itself refused (a DatabaseError, which has a severity and a SQLSTATE),
 * for a reason other than the connection or the server's state: classes 08 (connection), 53
 * (resources) and 57 (operator intervention, a shutdown) pass, and a retry may succeed.
 */
function isRefusal(error: unknown): boolean {
  const { severity, code } = error as { severity?: unknown; code?: unknown };
  if (typeof severity !== 'string' || typeof code !== 'string') return false;
  return !['08', '53', '57'].includes(code.slice(0, 2));
}

/**
 * One sanction into the group's log. The insert runs under a transaction-scoped advisory lock,
 * so ids become visible in the order they are taken: with a bigserial alone, two publishers can
 * take ids 7 and 8 and commit 8 first, and a reader whose cursor passed 8 would never see 7.
 * A repeat (same origin server and local id, after a crash) inserts nothing and notifies nobody.
 */
async function publishOne(
  client: pg.Client,
  server: { id: string; name: string },
  sanction: Sanction,
): Promise<boolean> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [PUBLISH_LOCK.toString()]);
    // Under the lock the newest row is the one before this one in every reader's order.
    const inserted = await client.query<{ id: string; previous: string }>(
      `WITH previous AS (SELECT coalesce(max(id), 0) AS id FROM modgate.sanctions)
       INSERT INTO modgate.sanctions
         (action, kind, platform_id, origin_server, origin_local_id, actor, reason, expires_at, channels, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (origin_server, origin_local_id) DO NOTHING
       RETURNING id::text, (SELECT id FROM previous)::text AS previous`,
      [
        sanction.action,
        kindOf(sanction.action),
        sanction.platform_id,
        server.id,
        sanction.local_id,
        JSON.stringify(sanction.actor),
        sanction.reason,
        sanction.expires_at,
        sanction.channels,
        sanction.created_at,
      ],
    );
    const row = inserted.rows[0];
    if (row) await client.query('SELECT pg_notify($1, $2)', [CHANNEL, toNotice(row, server, sanction)]);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The rows after a cursor, each with whether a later row of the same player and kind exists: that
 * later row decides (docs/group.md, "Conflict rule"), so this one is not applied. Without that, a
 * server would apply another's earlier unban over its own later ban, and the two would differ.
 * Each also carries its creation time and origin's name, for the group's events and lag metric.
 */
const ROWS_QUERY = `SELECT s.id::text, s.action, s.kind, s.platform_id, s.origin_server, s.actor, s.reason,
    s.expires_at, s.channels, s.created_at,
    (SELECT o.name FROM modgate.servers o WHERE o.server_id = s.origin_server) AS origin_name,
    EXISTS (SELECT 1 FROM modgate.sanctions l
      WHERE l.platform_id = s.platform_id AND l.kind = s.kind AND l.id > s.id) AS superseded
  FROM modgate.sanctions s WHERE s.id > $1 ORDER BY s.id LIMIT $2`;

const STATUS_QUERY = `SELECT s.name, s.server_id,
    (s.daemon_up AND s.last_seen_at > now() - make_interval(secs => $1)) AS daemon_up,
    (s.link_up AND s.daemon_up AND s.last_seen_at > now() - make_interval(secs => $1)) AS link_up,
    s.last_seen_at,
    (SELECT count(*) FROM modgate.sanctions x
      WHERE x.id > s.applied_cursor AND x.origin_server <> s.server_id AND x.kind = ANY (s.accept)) AS pending
  FROM modgate.servers s ORDER BY s.name, s.server_id`;
