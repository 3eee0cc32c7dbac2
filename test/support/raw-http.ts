/** Raw TCP against the HTTP listener: bytes node's own client would never send, read back as sent. */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** Writes raw bytes and collects everything the server sends until it closes the socket. */
export async function raw(
  port: number,
  send: (socket: Socket) => void,
  options: { localAddress?: string } = {},
): Promise<string> {
  const socket = connect({ port, host: '127.0.0.1', ...options });
  await once(socket, 'connect');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  send(socket);
  await once(socket, 'close');
  return text;
}

export interface RawReply {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The body parsed as JSON (chunked or not), or null when empty. */
  json: unknown;
}

/** Parses the first response of a raw reply. */
export function parseReply(text: string): RawReply {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  else if (headers['content-length'] !== undefined) body = body.slice(0, Number(headers['content-length']));
  const utf8 = Buffer.from(body, 'latin1').toString('utf8');
  return { status: Number(statusLine.split(' ')[1]), headers, json: utf8 === '' ? null : JSON.parse(utf8) };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

export interface Silent {
  socket: Socket;
  /** What the server sent before it closed the socket (a 429 over the cap; nothing on a timeout). */
  reply: Promise<string>;
}

/** A connection that never sends a byte, from `localAddress` (127.0.0.2 is a loopback address too). */
export async function silent(port: number, localAddress: string): Promise<Silent> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => undefined);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const reply = once(socket, 'close').then(() => text);
  await once(socket, 'connect');
  return { socket, reply };
}
