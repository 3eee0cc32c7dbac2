/**
 * Pages of the audit log, newest first, across `audit.jsonl` and its rotated copies
 * (audit-files.ts), for `GET /admin/v1/audit`. A page is bounded three ways: at most `limit`
 * lines, at most `maxFiles` files looked at, and a time budget: when the budget is spent the
 * page ends where the reading stands, possibly short or empty, with a position to go on from
 * (`has_more`), so a filter that matches little never holds a request for long. Positions are
 * `{head, offset}`: the file by its first line, and the start of the last line given, so they
 * keep working when a rotation renames or compresses the file in between.
 *
 * The log is in time order (a line is written as its request finishes), so `since` ends the
 * reading at the first older line; `until` skips the newer ones.
 */
import {
  auditFiles,
  readCompressedForward,
  readPlainBackward,
  endOf,
  type AuditFile,
} from './audit-files.ts';

export interface AuditFilter {
  /** An API key's id (`key_id`). */
  readonly keyId?: string | undefined;
  /** An admin actor: `local`, `local:UID`, `token`, `token:ID`, `session`, `session:ID`. */
  readonly actor?: string | undefined;
  /**
   * A route template (`/v1/players/{ref}/ban`, `/admin/v1/keys/{id}`) or a concrete path
   * (`/admin/v1/keys/k3v9q2m7x1pa`): a line matches by its `route` or its `target`.
   */
  readonly route?: string | undefined;
  readonly method?: string | undefined;
  /** A status (`404`) or a class (`4xx`). */
  readonly status?: string | undefined;
  /** ISO 8601 instants, inclusive. */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

export interface AuditPosition {
  readonly head: string;
  /** Lines starting before this offset are next; null: the whole file. */
  readonly offset: number | null;
}

/** One audit line as written (audit-log.ts AuditEntry, and what admin actions add). */
export type AuditRecord = Readonly<Record<string, unknown>> & { readonly time: string };

export interface AuditPage {
  readonly entries: AuditRecord[];
  /** Where the next page starts; null when the log has nothing older that matches. */
  readonly next: AuditPosition | null;
}

export interface AuditReadLimits {
  readonly limit: number;
  /** Milliseconds a page may spend reading before it ends short. */
  readonly budgetMs: number;
  /** Rotated files looked at, newest first, the current one included. */
  readonly maxFiles: number;
}

export const AUDIT_READ_DEFAULTS = Object.freeze({ budgetMs: 1_000, maxFiles: 64 });

/** GET /admin/v1/audit's reader: a page of `limit` matching lines older than `after`. */
export type AuditPages = (
  filter: AuditFilter,
  after: AuditPosition | null,
  limit: number,
) => Promise<AuditPage>;

/**
 * The reader of one data dir's audit log within the operator's limits (`[admin]
 * audit_page_budget_ms`; the rest AUDIT_READ_DEFAULTS), built once by whoever reads the settings,
 * so the limits go straight to the one route that uses them.
 */
export function auditPageReader(
  dataDir: string,
  limits: Partial<Omit<AuditReadLimits, 'limit'>> = {},
): AuditPages {
  return (filter, after, limit) =>
    readAuditPage(dataDir, filter, after, { ...AUDIT_READ_DEFAULTS, ...limits, limit });
}

/** The page of matching lines older than `after` (the newest when null). */
export async function readAuditPage(
  dataDir: string,
  filter: AuditFilter,
  after: AuditPosition | null,
  limits: AuditReadLimits,
  now: () => number = performance.now.bind(performance),
): Promise<AuditPage> {
  const deadline = now() + limits.budgetMs;
  const files = await auditFiles(dataDir, limits.maxFiles);
  let index = 0;
  if (after !== null) {
    index = files.findIndex((file) => file.head === after.head);
    // The file was deleted by retention: nothing older is left.
    if (index === -1) return { entries: [], next: null };
  }
  const matches = matcher(filter);
  const page = new PageBuilder(limits.limit);
  for (; index < files.length; index += 1) {
    const file = files[index] as AuditFile;
    const end = (after !== null && file.head === after.head ? after.offset : null) ?? (await endOf(file));
    const spent = () => now() > deadline;
    const outcome = file.compressed
      ? await scanCompressed(file, end, matches, page, spent)
      : await scanPlain(file, end, matches, page, spent);
    if (outcome === 'full' || outcome === 'older') break;
    if (outcome === 'budget') return { entries: page.entries, next: page.resumeAt ?? null };
    if (now() > deadline && index + 1 < files.length) {
      const following = files[index + 1] as AuditFile;
      return { entries: page.entries, next: { head: following.head as string, offset: null } };
    }
  }
  return { entries: page.entries, next: page.full ? page.lastPosition : null };
}

type ScanOutcome = 'full' | 'older' | 'done' | 'budget';

/** Collects one page: `limit` lines and whether one more matching line exists. */
class PageBuilder {
  readonly entries: AuditRecord[] = [];
  lastPosition: AuditPosition | null = null;
  /** Where to go on when the budget ends the page mid-file. */
  resumeAt: AuditPosition | null = null;
  full = false;

  constructor(readonly limit: number) {}

  /** Adds a line; false once the page is complete (a line past the limit was seen). */
  add(record: AuditRecord, position: AuditPosition): boolean {
    if (this.entries.length === this.limit) {
      this.full = true;
      return false;
    }
    this.entries.push(record);
    this.lastPosition = position;
    return true;
  }
}

type Verdict = 'match' | 'skip' | 'older';

async function scanPlain(
  file: AuditFile,
  end: number,
  matches: (record: AuditRecord) => Verdict,
  page: PageBuilder,
  spent: () => boolean,
): Promise<ScanOutcome> {
  let outcome: ScanOutcome = 'done';
  const head = file.head as string;
  await readPlainBackward(file.path, end, (line) => {
    const record = parse(line.text);
    const verdict = record === null ? 'skip' : matches(record);
    if (verdict === 'older') {
      outcome = 'older';
      return false;
    }
    if (verdict === 'match' && !page.add(record as AuditRecord, { head, offset: line.start })) {
      outcome = 'full';
      return false;
    }
    if (spent()) {
      outcome = 'budget';
      page.resumeAt = { head, offset: line.start };
      return false;
    }
    return true;
  });
  return outcome;
}

/**
 * A compressed file streams forward, so the newest lines before `end` come last: it keeps the
 * last `room + 1` matches in a ring, then gives them newest first. Nothing of it can be given
 * before it is read to `end`: when the budget runs out and the page already holds lines (from
 * newer files), it stops and the next page starts this file again; otherwise it is read to the
 * end whatever the budget, so every page makes progress (docs/admin.md says how long it takes).
 */
async function scanCompressed(
  file: AuditFile,
  end: number,
  matches: (record: AuditRecord) => Verdict,
  page: PageBuilder,
  spent: () => boolean,
): Promise<ScanOutcome> {
  const room = page.limit - page.entries.length + 1;
  const ring: { record: AuditRecord; start: number }[] = [];
  const head = file.head as string;
  let older = false;
  let stopped = false;
  await readCompressedForward(file.path, end, (line) => {
    if (page.entries.length > 0 && spent()) {
      stopped = true;
      return false;
    }
    const record = parse(line.text);
    const verdict = record === null ? 'skip' : matches(record);
    if (verdict === 'older') {
      older = true;
      ring.length = 0; // everything before it is older still
    } else if (verdict === 'match') {
      ring.push({ record: record as AuditRecord, start: line.start });
      if (ring.length > room) ring.shift();
    }
    return true;
  });
  if (stopped) {
    page.resumeAt = { head, offset: Number.isFinite(end) ? end : null };
    return 'budget';
  }
  for (const { record, start } of ring.reverse()) {
    if (!page.add(record, { head, offset: start })) return 'full';
  }
  return older ? 'older' : 'done';
}

function parse(text: string): AuditRecord | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    // A gap record (audit-log.ts, AuditGap) is not a request: the admin API's record shape has
    // none of its fields, so the reader leaves it to the file.
    if ('gap' in value) return null;
    return typeof (value as { time?: unknown }).time === 'string' ? (value as AuditRecord) : null;
  } catch {
    return null;
  }
}

/** The filter as one check per line: a match, a line to skip, or the first line before `since`. */
function matcher(filter: AuditFilter): (record: AuditRecord) => Verdict {
  const statusMatches = statusMatcher(filter.status);
  return (record) => {
    if (filter.since !== undefined && record.time < filter.since) return 'older';
    if (filter.until !== undefined && record.time > filter.until) return 'skip';
    if (filter.keyId !== undefined && record['key_id'] !== filter.keyId) return 'skip';
    if (filter.route !== undefined && !routeMatches(filter.route, record)) return 'skip';
    if (filter.method !== undefined && record['method'] !== filter.method) return 'skip';
    if (!statusMatches(record['status'])) return 'skip';
    if (filter.actor !== undefined && !actorMatches(filter.actor, record['actor'])) return 'skip';
    return 'match';
  };
}

/**
 * A line records its path twice, as the route template and as the concrete target, and a reader
 * holds whichever one they saw: matching only the template found a key's creation
 * (`/admin/v1/keys`, template and path alike) but none of its revocations, nor any line of an
 * unrouted request (`route: "unmatched"`). The target is compared as written and decoded.
 */
function routeMatches(wanted: string, record: AuditRecord): boolean {
  if (record['route'] === wanted) return true;
  const target = record['target'];
  if (typeof target !== 'string') return false;
  if (target === wanted) return true;
  try {
    return decodeURIComponent(target) === wanted;
  } catch {
    return false;
  }
}

function statusMatcher(status: string | undefined): (value: unknown) => boolean {
  if (status === undefined) return () => true;
  if (/^[1-5]xx$/.test(status)) {
    const hundreds = Number(status[0]);
    return (value) => typeof value === 'number' && Math.floor(value / 100) === hundreds;
  }
  const exact = Number(status);
  return (value) => value === exact;
}

/**
 * An admin line's `actor` is `{kind: 'local', uid}` or `{kind: 'token' | 'session', token_id,
 * name}`; the filter names a kind, or a kind and its uid or token id.
 */
function actorMatches(wanted: string, actor: unknown): boolean {
  if (typeof actor !== 'object' || actor === null) return false;
  const { kind, uid, token_id: tokenId } = actor as { kind?: unknown; uid?: unknown; token_id?: unknown };
  if (typeof kind !== 'string') return false;
  const [wantedKind, wantedId] = splitActor(wanted);
  if (wantedKind !== kind) return false;
  if (wantedId === undefined) return true;
  return String(kind === 'local' ? uid : tokenId) === wantedId;
}

function splitActor(wanted: string): [string, string | undefined] {
  const colon = wanted.indexOf(':');
  return colon === -1 ? [wanted, undefined] : [wanted.slice(0, colon), wanted.slice(colon + 1)];
}
