/**
 * The admin API over a data dir no daemon serves: the same pipeline and routes as admin.sock
 * (createAdminPipeline, ADMIN_ROUTES), run in the CLI's own process with the offline subset of
 * the admin services (docs/admin.md, "The CLI and a running daemon"). So a `modgate keys`,
 * `plan`, `api`, `webhooks` or `admin tokens` command has one code path whether a daemon runs or
 * not: it builds an admin request and sends it, to the daemon's socket or here.
 *
 * While it is open it holds the data dir's daemon lock (daemon/store/daemon-lock.ts), as a
 * daemon does: a `serve` started meanwhile is refused rather than loading files mid-change, and a
 * second command waits for this one as it would for a starting daemon (cli/admin-client.ts).
 *
 * Offline there is what the routes need from the files: the data dir and its snapshot (`apply`
 * reloads the part written; a broken file refuses only the routes that read it, as an admin write
 * on a running daemon reads back only the file it wrote), the audit log (an offline write is audited like the daemon's, with
 * the local uid), admin tokens, key usage as recorded on disk, and the webhook registry without
 * delivery, whose new endpoints start at the stored event log's end. What only a running daemon
 * has (the mod link, live events, reload, the panel, request counts) answers 503
 * `daemon_not_running`.
 */
import type { EventLog } from '../events/types.ts';
import { lastStoredEventId } from '../events/webhooks/log-end.ts';
import { WebhookService } from '../events/webhooks/webhook-service.ts';
import { ApiError } from '../http/api-error.ts';
import { AuditLog } from '../log/audit-log.ts';
import { auditPageReader } from '../log/audit-query.ts';
import type { Logger } from '../log/log.ts';
import { holdDaemonLock } from '../store/daemon-lock.ts';
import type { DataDir } from '../store/data-dir.ts';
import { StoreError } from '../store/errors.ts';
import { KeyUsageRecorder } from '../store/key-usage-recorder.ts';
import { createAdminPipeline, type AdminHandle } from './admin-pipeline.ts';
import { AdminTokens } from './admin-tokens.ts';
import { ADMIN_ROUTES } from './routes/index.ts';
import type { AdminServices } from './services.ts';

export interface OfflineAdminOptions {
  /** Where the pipeline's log lines go: the CLI passes one that prints only errors. */
  readonly log: Logger;
  /** A problem that does not stop the command (a broken key-usage.json), said once. */
  readonly warn: (message: string) => void;
  /** The command's clock (AdminServices.now); the system's unless set. */
  readonly now?: () => Date;
}

/** The in-process admin API of one data dir; close() lets go of its files and its daemon lock. */
export interface OfflineAdmin {
  readonly handle: AdminHandle;
  close(): Promise<void>;
}

/**
 * Takes the data dir's daemon lock (a StoreError `daemon_running` when a daemon holds it), loads
 * the data dir and opens what the routes need. Everything opened is closed again if a later step
 * fails.
 */
export async function openOfflineAdmin(
  dataDir: DataDir,
  options: OfflineAdminOptions,
): Promise<OfflineAdmin> {
  const lock = await holdDaemonLock(dataDir.path);
  const opened: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closeOne of opened.reverse()) await closeOne();
    await lock.release();
  };
  try {
    // Partial: a broken file refuses only the commands that read it (DataDir.partialSnapshot).
    const snapshot = await dataDir.loadPartial();
    const audit = await AuditLog.open(dataDir.path);
    opened.push(() => audit.close());
    // Never records a use: only /v1 does, and no daemon serves /v1 now. So never written either.
    const keyUsage = await KeyUsageRecorder.open(dataDir, {
      onError: (error) => options.warn(`${(error as Error).message}; last use is not shown`),
    });
    // Both read a file as they open (admin-tokens.json, webhooks.json): one that cannot is a
    // refusal for the routes that use it, not for the command (orRefusal).
    const tokens = await orRefusal(async () => {
      const made = new AdminTokens({ dataDir, snapshot: () => snapshot.current(), log: options.log });
      opened.push(() => made.close());
      return made;
    });
    const webhooks = await orRefusal(async () => {
      const service = await WebhookService.start({
        dataDir: dataDir.path,
        eventLog: storedEventLogEnd(await lastStoredEventId(dataDir.path)),
        serverId: snapshot.current().identity.serverId,
        logger: options.log,
        registryOnly: true,
        ...(options.now ? { now: options.now } : {}),
      });
      opened.push(() => service.close());
      return service;
    });
    const services = withDaemonOnlyParts(
      {
        dataDir,
        snapshot: () => snapshot.current(),
        apply: (part) => snapshot.reloadPart(part),
        audit,
        auditPages: auditPageReader(dataDir.path),
        keyUsage,
        ...(options.now ? { now: options.now } : {}),
      },
      { tokens, webhooks },
    );
    const handle = createAdminPipeline({
      routes: ADMIN_ROUTES,
      services,
      transport: { kind: 'socket', uid: process.getuid?.() ?? 0 },
      log: options.log,
    });
    return { handle, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The event log as a registry without delivery sees it: its end as stored (a new endpoint
 * receives what is logged after it, docs/events.md), nothing to read, nothing to wait for. The
 * daemon lock is held, so nothing appends while the command runs.
 */
function storedEventLogEnd(lastId: number): EventLog {
  return { lastId: () => lastId, readAfter: () => [], subscribe: () => () => undefined };
}

/** The parts of AdminServices only a running daemon has. */
const DAEMON_ONLY = [
  'startedAt',
  'link',
  'playersOnline',
  'events',
  'requests',
  'panel',
  'reload',
  'eventStreams',
  'game',
  'group',
] as const satisfies readonly (keyof AdminServices)[];

/** The parts that read a file as they open: each opened, or the StoreError its file gave. */
type FileParts = { [Name in 'tokens' | 'webhooks']: Opened<AdminServices[Name]> };

type OfflineParts = Omit<AdminServices, (typeof DAEMON_ONLY)[number] | keyof FileParts>;

type Opened<T> = { value: T } | { refusal: StoreError };

/** `open()`'s value, or the StoreError it threw (a broken file); anything else is thrown. */
async function orRefusal<T>(open: () => Promise<T>): Promise<Opened<T>> {
  try {
    return { value: await open() };
  } catch (error) {
    if (error instanceof StoreError) return { refusal: error };
    throw error;
  }
}

/**
 * `parts` with the daemon's own parts added as getters that answer 503 daemon_not_running, so a
 * route that reaches one is refused in the envelope like any other refusal, and the parts that
 * read a file, each as opened or as a getter that throws its file's StoreError. (Getters, not
 * values: a spread or Object.assign would call them.)
 */
function withDaemonOnlyParts(parts: OfflineParts, fileParts: FileParts): AdminServices {
  const refuse = (): never => {
    throw new ApiError('daemon_not_running');
  };
  const getters: PropertyDescriptorMap = Object.fromEntries(
    DAEMON_ONLY.map((name) => [name, { get: refuse, enumerable: true }]),
  );
  for (const [name, opened] of Object.entries(fileParts) as [keyof FileParts, Opened<unknown>][]) {
    // A route that reads a part whose file is broken is refused naming it (409, admin-pipeline.ts).
    getters[name] =
      'value' in opened
        ? { value: opened.value, enumerable: true }
        : {
            get: () => {
              throw opened.refusal;
            },
            enumerable: true,
          };
  }
  return Object.defineProperties({ ...parts }, getters) as AdminServices;
}
