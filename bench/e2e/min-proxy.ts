/**
 * Anchor for the proxied read: the least a gateway can do. node:http takes the request, sends one
 * msgpack frame `{ id, op, args }` over a WebSocket to the mod process (min-mod.ts, which dials
 * in as the real mod does), and answers the JSON of the result it gets back. No auth, no
 * validation, no signing, no log. Runs in its own process; prints its two ports.
 *
 *   node --import tsx bench/e2e/min-proxy.ts <op> <args-json>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Packr, Unpackr } from 'msgpackr';
import { WebSocketServer, type WebSocket } from 'ws';

const op = process.argv[2] as string;
const args = JSON.parse(process.argv[3] as string) as unknown;
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const pending = new Map<number, (result: unknown) => void>();
let nextId = 0;
let mod: WebSocket | null = null;

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
wss.on('connection', (socket) => {
  mod = socket;
  socket.on('message', (data: Buffer) => {
    const reply = unpackr.unpack(data) as { id: number; result: unknown };
    pending.get(reply.id)?.(reply.result);
    pending.delete(reply.id);
  });
});

const server = createServer((_req, res) => {
  if (mod === null) {
    res.writeHead(503).end();
    return;
  }
  const id = nextId++;
  pending.set(id, (result) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(result));
  });
  mod.send(packr.pack({ id, op, args }));
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const ports = {
    port: (server.address() as AddressInfo).port,
    modPort: (wss.address() as AddressInfo).port,
  };
  process.stdout.write(`${JSON.stringify(ports)}\n`);
});
process.on('SIGTERM', () => process.exit(0));
