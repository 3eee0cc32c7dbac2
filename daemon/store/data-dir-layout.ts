/**
 * Which files a data dir holds, by name (docs/data-dir.md). A leaf: each data file's module
 * (identity.ts, keys-file.ts…) takes its name from here, and data-dir.ts, which reads those
 * modules, re-exports these names as part of the one way into the data dir.
 */

/** The files of an initialised data dir. */
export const DATA_FILES = {
  identity: 'identity.json',
  modKeys: 'mod-keys.json',
  modCredentials: 'mod-credentials.json',
  state: 'state.json',
  keys: 'keys.json',
} as const;

export const DATA_FILE_NAMES: readonly string[] = Object.values(DATA_FILES);

/**
 * Files the daemon creates as it runs (absent until then): the idempotency journal, the audit
 * log and when each API key was last used (apart from keys.json, which the daemon never
 * rewrites behind the operator). They hold request data, so they are held to the same 0600 rule
 * as the data files.
 */
export const RECORD_FILES = {
  journal: 'idempotency.jsonl',
  audit: 'audit.jsonl',
  keyUsage: 'key-usage.json',
} as const;

export const RECORD_FILE_NAMES: readonly string[] = Object.values(RECORD_FILES);

/**
 * The webhooks' files (daemon/events/webhooks/): the endpoints and their secrets, created by the
 * first `webhooks add`, and the daemon's delivery journal. Named here so the data dir check holds
 * them to 0600 like the rest.
 */
export const WEBHOOK_FILES = { endpoints: 'webhooks.json', outbox: 'webhook-outbox.jsonl' } as const;

/**
 * Group mode's files (daemon/group/, docs/group.md): the outbox (the sanctions made here and not
 * yet published to the group's database, and how far the mod's events have been read) and the
 * sanctions from the group this server's game refused. Absent unless `[group]` is configured.
 */
export const GROUP_FILES = { outbox: 'group-outbox.jsonl', failures: 'group-failures.json' } as const;

/** Held by a running daemon from start to stop, naming its process (see daemon-lock.ts). */
export const DAEMON_LOCK_FILE = 'daemon.lock';

/**
 * The admin API's files (docs/admin.md): the admin tokens, created by the first `admin tokens
 * create`, the panel's sessions (hashes only), written by `serve` from the first sign-in, and the
 * Unix socket `serve` listens on while it runs (mode 0600; a socket, which the data dir check
 * allows under this name only).
 */
export const ADMIN_FILES = {
  tokens: 'admin-tokens.json',
  sessions: 'admin-sessions.json',
  socket: 'admin.sock',
} as const;

/** Every file the data dir check holds to 0600 (anything else in the folder: not writable by others). */
export const PRIVATE_FILE_NAMES: readonly string[] = [
  ...DATA_FILE_NAMES,
  ...RECORD_FILE_NAMES,
  ...Object.values(WEBHOOK_FILES),
  ...Object.values(GROUP_FILES),
  DAEMON_LOCK_FILE,
  ADMIN_FILES.tokens,
  ADMIN_FILES.sessions,
];

/** The exclusive lock the CLI takes for a read-modify-write (see lock.ts). */
export const LOCK_FILE = '.lock';
