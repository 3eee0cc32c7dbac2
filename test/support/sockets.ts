/**
 * Raw TCP clients for flood tests: sockets that connect and then say nothing, the way an attacker
 * holds a port open. Each is destroyed by `release()`; a reset by the server is their normal end.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface SilentSockets {
  sockets: Socket[];
  /** How many the server has not closed yet. */
  open(): number;
  release(): void;
}

/** One TCP connection to host:port that sends nothing. */
export async function silentSocket(host: string, port: number): Promise<Socket> {
  const socket = connect({ host, port });
  socket.on('error', () => {}); // a reset by the server is the expected end
  await once(socket, 'connect');
  return socket;
}

/** Opens `count` silent sockets, 200 at a time so the listen backlog never overflows. */
export async function silentFlood(host: string, port: number, count: number): Promise<SilentSockets> {
  const sockets: Socket[] = [];
  try {
    for (let opened = 0; opened < count; opened += 200) {
      const batch = Math.min(200, count - opened);
      sockets.push(...(await Promise.all(Array.from({ length: batch }, () => silentSocket(host, port)))));
    }
  } catch (error) {
    for (const socket of sockets) socket.destroy();
    throw error;
  }
  return {
    sockets,
    open: () => sockets.filter((socket) => !socket.destroyed).length,
    release: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
