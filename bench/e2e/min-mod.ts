/**
 * The mod side of the minimal proxy anchor (min-proxy.ts): dials the proxy's WebSocket and
 * answers every `{ id, op, args }` frame with `{ id, result }`, the result being the op result
 * captured from the real simulator for the same read. Runs in its own process.
 *
 *   node --import tsx bench/e2e/min-mod.ts ws://127.0.0.1:PORT <result.json>
 */
import { readFileSync } from 'node:fs';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';

const result = JSON.parse(readFileSync(process.argv[3] as string, 'utf8')) as unknown;
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const socket = new WebSocket(process.argv[2] as string);
socket.on('open', () => process.stdout.write('{"connected":true}\n'));
socket.on('message', (data: Buffer) => {
  const { id } = unpackr.unpack(data) as { id: number };
  socket.send(packr.pack({ id, result }));
});
process.on('SIGTERM', () => process.exit(0));
