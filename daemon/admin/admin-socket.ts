/**
 * `<data-dir>/admin.sock`, the admin API's Unix socket (docs/admin.md, "admin.sock, in detail").
 * Whoever can open it is the operator: its permission is the authentication, as with Docker's and
 * Caddy's.
 *
 * No moment at which another user could connect:
 * - the socket is born 0600: the process umask is 0177 for the one synchronous `listen` call
 *   that creates it (node binds a Unix socket before listen() returns), then restored, and it is
 *   chmod'ed 0600 again before the first connection is accepted;
 * - and it lives in the data dir, which the trust check holds to 0700 and to the daemon's user:
 *   another user cannot even reach the path, whatever the socket's own mode.
 *
 * A socket left by a daemon that crashed is replaced only when nothing answers on it; one that
 * answers belongs to a running `serve` on this data dir, and start-up stops with that message.
 * The check and the bind happen under the data dir lock, so two daemons starting at once cannot
 * both decide the socket is stale and take it from each other. node removes the socket when the
 * server closes (stop, SIGTERM).
 */
import { once } from 'node:events';
import { chmod, unlink } from 'node:fs/promises';
import { connect, type Server } from 'node:net';
import { join } from 'node:path';
import { lstatOrNull } from '../store/data-dir-fs.ts';
import { ADMIN_FILES } from '../store/data-dir-layout.ts';
import { withDataDirLock } from '../store/lock.ts';

export const ADMIN_SOCKET = ADMIN_FILES.socket;

/** Another process answers on admin.sock: a daemon already serves this data dir. */
export class AdminSocketInUse extends Error {
  constructor(readonly path: string) {
    super(
      `another modgate serve is running on this data dir: ${path} answers (stop it first, or use its admin API)`,
    );
    this.name = 'AdminSocketInUse';
  }
}

/**
 * The longest Unix socket path Linux takes (`sun_path` is 108 bytes with its NUL). node does not
 * refuse a longer one: it binds a truncated path, which could lie outside the data dir.
 */
export const MAX_SOCKET_PATH_BYTES = 107;

/** The data dir's path is too long for a socket inside it. */
export class AdminSocketPathTooLong extends Error {
  constructor(readonly path: string) {
    super(
      `${path} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket path may have: ` +
        'move the data dir to a shorter path',
    );
    this.name = 'AdminSocketPathTooLong';
  }
}

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, ADMIN_SOCKET);
}

/** Binds `server` to `<dataDir>/admin.sock`, mode 0600, replacing a stale socket. */
export async function bindAdminSocket(server: Server, dataDir: string): Promise<void> {
  const path = adminSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) throw new AdminSocketPathTooLong(path);
  await withDataDirLock(dataDir, async () => {
    await removeStaleSocket(path);
    const umask = process.umask(0o177);
    try {
      server.listen(path);
    } finally {
      process.umask(umask);
    }
    await once(server, 'listening');
    await chmod(path, 0o600);
  });
}

/** Removes a socket at `path` that nothing answers on; throws when one answers. */
async function removeStaleSocket(path: string): Promise<void> {
  const entry = await lstatOrNull(path);
  if (entry === null) return;
  // Anything but a socket is left for the data dir check, which names it; listen fails on it.
  if (!entry.isSocket()) return;
  if (await answers(path)) throw new AdminSocketInUse(path);
  await unlink(path);
}

/** True when a process accepts a connection on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
