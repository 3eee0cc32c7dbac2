/**
 * Raw requests cut with a TCP reset, the way a hostile or crashing client leaves: after the
 * request, either at once (before any answer) or at the moment the first byte of the answer
 * arrives, while the server may still be writing it.
 */
import { connect } from 'node:net';

export type ResetMoment = 'before-answer' | 'on-answer';

/** What the server sent before the reset (empty when it sent nothing or the reset came first). */
export function sendThenReset(port: number, request: string, moment: ResetMoment): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('error', () => undefined); // our own reset, or the server closing first
    socket.on('close', () => resolve(received));
    // A server that neither answers nor closes is cut too, so no attempt can hang.
    socket.setTimeout(5_000, () => socket.resetAndDestroy());
    socket.on('connect', () => {
      socket.write(request, 'latin1');
      if (moment === 'before-answer') socket.resetAndDestroy();
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (moment === 'on-answer') socket.resetAndDestroy();
    });
  });
}

const UPGRADE_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

/** Requests node:http does not hand to a plain request handler, or refuses itself. */
export const HOSTILE_REQUESTS: Readonly<Record<string, string>> = {
  connect: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
  'upgrade websocket':
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
    `Sec-WebSocket-Key: ${UPGRADE_KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  'upgrade h2c':
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n' +
    'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n',
  'malformed request line': 'GET /healthz HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n',
  'header block over the limit': `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  'no Host header': 'GET /healthz HTTP/1.1\r\n\r\n',
};

/** What the mod-link port gets besides a mod: plain HTTP, and upgrades ws refuses. */
export const HOSTILE_LINK_REQUESTS: Readonly<Record<string, string>> = {
  'plain HTTP request': 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  'upgrade with a bad version':
    'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
    `Sec-WebSocket-Key: ${UPGRADE_KEY}\r\nSec-WebSocket-Version: 99\r\n\r\n`,
  'upgrade h2c': HOSTILE_REQUESTS['upgrade h2c'] as string,
  connect: HOSTILE_REQUESTS['connect'] as string,
  'malformed request line': HOSTILE_REQUESTS['malformed request line'] as string,
};
