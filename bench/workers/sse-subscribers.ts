/**
 * The subscribers of bench/events.ts in their own thread, so the daemon's event loop measures
 * only the daemon: opens `count` SSE streams and, for each event id, reports when the last of
 * them read it (ms on the shared clock: performance.timeOrigin + performance.now()).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSse, type SseClient } from '../../harness/sse-client.ts';

const { url, key, count } = workerData as { url: string; key: string; count: number };
const reads = new Map<string, number>();
const now = () => performance.timeOrigin + performance.now();
const clients: SseClient[] = [];
for (let i = 0; i < count; i += 50) {
  const batch = Array.from({ length: Math.min(50, count - i) }, () =>
    openSse(url, { authorization: `Bearer ${key}` }),
  );
  clients.push(...(await Promise.all(batch)));
}
for (const client of clients) {
  client.onMessage = (message) => {
    if (message.id === null) return;
    const seen = (reads.get(message.id) ?? 0) + 1;
    reads.set(message.id, seen);
    if (seen === clients.length) parentPort?.postMessage({ id: message.id, at: now() });
  };
}
parentPort?.postMessage({ ready: clients.every((client) => client.status === 200) });
parentPort?.on('message', () => {
  for (const client of clients) client.close();
  parentPort?.close();
});
