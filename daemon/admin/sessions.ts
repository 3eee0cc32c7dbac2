/**
 * Panel sessions and one-time sign-in codes (docs/admin.md, "The panel").
 *
 * A session is what a browser holds after signing in, as an HttpOnly cookie
 * (session-cookie.ts): made from an admin token (`POST /admin/v1/session {token}`) or from a
 * one-time code (`{code}`, minted over admin.sock by `modgate admin login-url`). Secrets are
 * 32 random bytes; only their SHA-256 is kept, so a heap dump holds no usable cookie. Sessions
 * expire after `ttlMs` and end with their token (`endForToken`, and the auth stage checks the token
 * on every request). A store opened on a data dir (`SessionStore.open`) keeps its sessions in
 * admin-sessions.json too, hashes only, rewritten whenever one starts or ends, so a restart signs
 * no one out; on open it drops the expired ones and those whose token is revoked or gone. Codes
 * stay in memory (they live minutes). Whatever ends a
 * session before its expiry (sign-out, its token revoked, the cap) tells `onEnded`'s listeners, so
 * an event stream the session opened ends with it (admin-event-streams.ts).
 *
 * Both maps have a cap: at the cap the oldest entry goes, so memory is bounded whatever a token
 * holder does; a code lives `codeTtlMs` and is spent by its first use, right or wrong session.
 */
import { createHash, randomBytes } from 'node:crypto';
import { adminSessionsFile, type StoredSession } from '../store/admin-sessions.ts';
import { readDataFile, writeDataFile } from '../store/data-file.ts';
import { withDataDirLock } from '../store/lock.ts';
import type { AdminRole } from './roles.ts';

export interface SessionOptions {
  /** How long a session lasts from sign-in; 12 h by default. */
  ttlMs: number;
  /** Sessions held at most; at the cap the oldest is signed out. 1,000 by default. */
  maxSessions: number;
  /** How long a one-time code is good for; 5 min by default. */
  codeTtlMs: number;
  /** Unspent codes held at most; at the cap the oldest is dropped. 100 by default. */
  maxCodes: number;
}

export const DEFAULT_SESSION_OPTIONS: SessionOptions = {
  ttlMs: 12 * 3_600_000,
  maxSessions: 1_000,
  codeTtlMs: 5 * 60_000,
  maxCodes: 100,
};

/** Who a session acts as: the admin token it came from, or the one-time link's minter. */
export interface SessionOwner {
  /** The admin token's id; null for a session from a one-time link. */
  token_id: string | null;
  /** The token's name, or `login link (uid N)`; shown in the panel and the audit log. */
  name: string;
  /** The token's role (a login link's is the owner's): what the session may do. */
  role: AdminRole;
}

export interface Session extends SessionOwner {
  /** A short, non-secret id for the audit log: the first 12 hex digits of the secret's hash. */
  id: string;
  created_at: Date;
  expires_at: Date;
}

/** Where a store keeps its sessions across restarts (`SessionStore.open`). */
export interface SessionFileOptions {
  /** Whether an admin token may still be used: a session of one that is not is dropped on open. */
  tokenActive(id: string): boolean;
  /** A read or write of the file failed; the sessions in memory stand, and the next change retries. */
  onError(error: unknown): void;
}

interface Held<T> {
  value: T;
  expires: number;
}

/** 32 random bytes, base64url: what the cookie or the link carries. */
function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export class SessionStore {
  readonly options: SessionOptions;
  readonly #sessions = new Map<string, Held<Session>>();
  readonly #endedListeners = new Set<() => void>();
  readonly #codes = new Map<string, Held<SessionOwner>>();
  readonly #now: () => number;
  #file: { dir: string; onError: (error: unknown) => void } | undefined;
  /** The writes of the file, in order; `#queued` while one has not started (it takes later changes too). */
  #saving: Promise<void> = Promise.resolve();
  #queued = false;

  constructor(options: Partial<SessionOptions> = {}, now: () => number = Date.now) {
    this.options = { ...DEFAULT_SESSION_OPTIONS, ...options };
    this.#now = now;
  }

  /**
   * A store that keeps its sessions in `dataDir`'s admin-sessions.json: loads the live ones (the
   * newest `maxSessions`), and rewrites the file when it dropped any.
   */
  static async open(
    dataDir: string,
    file: SessionFileOptions,
    options: Partial<SessionOptions> = {},
    now: () => number = Date.now,
  ): Promise<SessionStore> {
    const store = new SessionStore(options, now);
    const stored = await readDataFile(dataDir, adminSessionsFile).catch((error: unknown) => {
      file.onError(error);
      return [] as readonly StoredSession[];
    });
    const live = stored
      .filter((record) => record.expiresAt.getTime() > now())
      .filter((record) => record.tokenId === null || file.tokenActive(record.tokenId))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(-store.options.maxSessions);
    for (const record of live) store.#sessions.set(record.hash, heldOf(record));
    store.#file = { dir: dataDir, onError: file.onError };
    if (live.length !== stored.length) store.#save();
    await store.#saving;
    return store;
  }

  /** Resolves once every change so far is in the file (a store without one: at once). */
  saved(): Promise<void> {
    return this.#saving;
  }

  /** Starts a session; returns its secret (the cookie's value) and the session. */
  create(owner: SessionOwner): { secret: string; session: Session } {
    const before = this.#sessions.size;
    const secret = newSecret();
    const hash = digest(secret);
    const now = this.#now();
    const session: Session = {
      ...owner,
      id: hash.slice(0, 12),
      created_at: new Date(now),
      expires_at: new Date(now + this.options.ttlMs),
    };
    this.#put(
      this.#sessions,
      hash,
      { value: session, expires: now + this.options.ttlMs },
      this.options.maxSessions,
    );
    // The oldest session was signed out to make room at the cap, or expired ones were dropped.
    if (this.#sessions.size <= before) this.#ended();
    this.#save();
    return { secret, session };
  }

  /** The live session this cookie value names, or undefined (unknown, expired). */
  find(secret: string): Session | undefined {
    const before = this.#sessions.size;
    const session = this.#take(this.#sessions, digest(secret), false);
    // It had expired: it leaves the file too.
    if (this.#sessions.size < before) this.#save();
    return session;
  }

  /** The expiry of the live session with this short id (`Session.id`), or null: ended or expired. */
  expiryOf(id: string): Date | null {
    const now = this.#now();
    for (const held of this.#sessions.values()) {
      if (held.value.id === id) return held.expires > now ? held.value.expires_at : null;
    }
    return null;
  }

  /** Calls `listener` whenever sessions end before their expiry (sign-out, token revoked, cap). */
  onEnded(listener: () => void): () => void {
    this.#endedListeners.add(listener);
    return () => void this.#endedListeners.delete(listener);
  }

  /** Signs out the session of this cookie value; true if there was one. */
  end(secret: string): boolean {
    const ended = this.#sessions.delete(digest(secret));
    if (ended) {
      this.#ended();
      this.#save();
    }
    return ended;
  }

  /** Signs out every session made from this admin token (the token was revoked). */
  endForToken(tokenId: string): number {
    let ended = 0;
    for (const [hash, held] of this.#sessions) {
      if (held.value.token_id === tokenId) {
        this.#sessions.delete(hash);
        ended += 1;
      }
    }
    if (ended > 0) {
      this.#ended();
      this.#save();
    }
    return ended;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Mints a one-time sign-in code; returns it with its expiry. */
  mintCode(owner: SessionOwner): { code: string; expires_at: Date } {
    const code = newSecret();
    const expires = this.#now() + this.options.codeTtlMs;
    this.#put(this.#codes, digest(code), { value: owner, expires }, this.options.maxCodes);
    return { code, expires_at: new Date(expires) };
  }

  /** Spends a code: its owner if it was unspent and unexpired, else undefined. Never twice. */
  redeemCode(code: string): SessionOwner | undefined {
    return this.#take(this.#codes, digest(code), true);
  }

  #put<T>(map: Map<string, Held<T>>, hash: string, held: Held<T>, cap: number): void {
    this.#sweep(map);
    // A Map iterates in insertion order: the first key is the oldest.
    while (map.size >= cap) map.delete(map.keys().next().value as string);
    map.set(hash, held);
  }

  #take<T>(map: Map<string, Held<T>>, hash: string, spend: boolean): T | undefined {
    const held = map.get(hash);
    if (held === undefined) return undefined;
    if (spend || held.expires <= this.#now()) map.delete(hash);
    return held.expires <= this.#now() ? undefined : held.value;
  }

  /** Queues a rewrite of the file with the sessions as they are when it runs. */
  #save(): void {
    const file = this.#file;
    if (file === undefined || this.#queued) return;
    this.#queued = true;
    this.#saving = this.#saving.then(async () => {
      this.#queued = false;
      const records = [...this.#sessions].map(([hash, held]) => storedOf(hash, held.value));
      try {
        // Under the data dir lock, as the daemon's other files are written (key-usage.json).
        await withDataDirLock(file.dir, () => writeDataFile(file.dir, adminSessionsFile, records));
      } catch (error) {
        file.onError(error);
      }
    });
  }

  #ended(): void {
    for (const listener of this.#endedListeners) listener();
  }

  /** Drops expired entries; run on each insert, so no timer is needed (idle means idle). */
  #sweep<T>(map: Map<string, Held<T>>): void {
    const now = this.#now();
    for (const [hash, held] of map) if (held.expires <= now) map.delete(hash);
  }
}

function storedOf(hash: string, session: Session): StoredSession {
  return {
    hash,
    tokenId: session.token_id,
    name: session.name,
    role: session.role,
    createdAt: session.created_at,
    expiresAt: session.expires_at,
  };
}

function heldOf(record: StoredSession): Held<Session> {
  const session: Session = {
    token_id: record.tokenId,
    name: record.name,
    role: record.role,
    id: record.hash.slice(0, 12),
    created_at: record.createdAt,
    expires_at: record.expiresAt,
  };
  return { value: session, expires: record.expiresAt.getTime() };
}
