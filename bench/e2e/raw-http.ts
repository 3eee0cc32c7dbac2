/**
 * Anchor for the cached read: a bare node:http server that answers every request with the bytes
 * and headers the daemon sent for the same read, captured once by e2e-http.ts. No routing, no
 * auth, no cache: what the wire alone costs. Runs in its own process; prints its port.
 *
 *   node --import tsx bench/e2e/raw-http.ts <capture.json>
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Capture {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const capture = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Capture;
const body = Buffer.from(capture.body, 'base64');
const server = createServer((_req, res) => {
  res.writeHead(capture.status, capture.headers);
  res.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
