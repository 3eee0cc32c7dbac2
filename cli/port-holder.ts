/**
 * Who holds a TCP port, best effort and Linux only: the listening socket's inode from
 * /proc/net/tcp and tcp6, then the process with a file descriptor on that socket. Only
 * processes this user may inspect are found (all of them as root); anything unreadable is
 * skipped, and null means "not found", never an error.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface PortHolder {
  pid: number;
  /** The command line, shortened. */
  command: string;
}

const LISTEN_STATE = '0A';

export async function findPortHolder(port: number): Promise<PortHolder | null> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const inode of await listeningInodes(table, port)) inodes.add(inode);
  }
  if (inodes.size === 0) return null;
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) {
        return { pid: Number(pid), command: await commandOf(pid) };
      }
    }
  }
  return null;
}

async function listeningInodes(table: string, port: number): Promise<string[]> {
  const text = await readFile(table, 'utf8').catch(() => '');
  const wanted = port.toString(16).toUpperCase().padStart(4, '0');
  return text
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${wanted}`) && fields[3] === LISTEN_STATE)
    .map((fields) => fields[9] ?? '')
    .filter((inode) => inode !== '' && inode !== '0');
}

async function commandOf(pid: string): Promise<string> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const command = raw.split('\0').filter(Boolean).join(' ');
  return command.length > 120 ? `${command.slice(0, 117)}...` : command || '?';
}
