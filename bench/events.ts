/**
 * Events (docs/events.md), three measurements on a real daemon and simulator over loopback:
 *
 * 1. fan-out: one event at a time from the mod (bridge.events.emit) to N SSE subscribers of
 *    GET /v1/events; per event, the time from the emit (the frame leaves in that turn) to the
 *    moment the last subscriber has read it; p50 / p99 / max over the events. Target p99 ≤ 100 ms
 *    at 1,000 subscribers.
 * 2. ingest: events/s the mod link and the log sustain: a steady 1,000/s for a few seconds (does
 *    the log keep up: lag from emit to durable), then a burst of 20,000 (the ceiling).
 * 3. slow subscribers: M subscribers that never read while the mod sends large events; the
 *    daemon's memory must stay bounded (each stream cut at stream_max_buffered_bytes) rather than
 *    grow with the backlog.
 *
 *   npx tsx bench/events.ts [--subscribers 1000] [--events 100] [--slow 200]
 *
 * The SSE clients run in this same process as the daemon (parsing 1,000 streams costs the one
 * thread too), so the fan-out numbers are pessimistic. Tests never assert on timing.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { openSse, type SseClient } from '../harness/sse-client.ts';
import { eventually, startStack, type Stack } from '../harness/stack.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '1000' },
    events: { type: 'string', default: '100' },
    slow: { type: 'string', default: '200' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const EVENTS = Number(values.events);
const SLOW = Number(values.slow);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** A valid `command.executed` payload: the daemon refuses data that does not fit its type. */
function command(text: string, result = ''): Record<string, unknown> {
  return { at: '2025-06-01 12:00:00.000', command: text, result, actor: null };
}

async function withStack<T>(maxBufferedBytes: number, run: (stack: Stack) => Promise<T>): Promise<T> {
  const generous = { limit: 1_000_000, windowSec: 60 };
  const stack = await startStack({
    daemon: {
      pipeline: {
        keyRateLimit: generous,
        edgeRateLimit: generous,
        checkResponses: false,
        // One key from one address holds every stream: lift the stream caps as far.
        streamLimits: { maxPerKey: 10_000, maxPerAddress: 10_000 },
      },
      // Every subscriber connects from 127.0.0.1: lift the per-address cap with the total one.
      http: { maxConnections: 10_000, maxConnectionsPerAddress: 10_000 },
      stream: { maxBufferedBytes },
      // The bench offers bursts past the default mod rate on purpose: measure the log, not the limit.
      eventLimits: { eventsBurst: 1_000_000, bytesBurst: 1 << 30 },
    },
    sim: { activityIntervalMs: 0, eventBuffer: 100_000 },
  });
  try {
    return await run(stack);
  } finally {
    await stack.close();
  }
}

async function subscribe(stack: Stack, count: number): Promise<SseClient[]> {
  const clients: SseClient[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, () =>
      openSse(`${stack.baseUrl}/v1/events`, { authorization: `Bearer ${stack.key}` }),
    );
    clients.push(...(await Promise.all(batch)));
  }
  if (clients.some((client) => client.status !== 200)) throw new Error('a subscriber was refused');
  return clients;
}

async function fanOut(): Promise<void> {
  await withStack(1_048_576, async (stack) => {
    // A .ts worker entry needs tsx registered first: the worker imports it once tsx is loaded.
    const entry = new URL('./workers/sse-subscribers.ts', import.meta.url).href;
    const boot = `import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entry)}))`;
    const worker = new Worker(boot, {
      eval: true,
      workerData: { url: `${stack.baseUrl}/v1/events`, key: stack.key, count: SUBSCRIBERS },
    });
    const done = new Map<string, number>();
    const ready = new Promise<boolean>((resolve) =>
      worker.on('message', (message: { ready?: boolean; id?: string; at?: number }) => {
        if (message.ready !== undefined) resolve(message.ready);
        else done.set(message.id as string, message.at as number);
      }),
    );
    if (!(await ready)) throw new Error('a subscriber was refused');
    const latencies: number[] = [];
    for (let n = 0; n < EVENTS; n += 1) {
      const id = String(stack.daemon.events.lastId() + 1);
      const t0 = performance.timeOrigin + performance.now();
      stack.sim!.bridge.events.emit('command.executed', command(`#Online ${n}`));
      await eventually(() => done.has(id), 10_000);
      latencies.push((done.get(id) as number) - t0);
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `fan-out to ${SUBSCRIBERS} SSE subscribers (another thread), ${EVENTS} events one at a time: ` +
        `p50 ${ms(quantile(latencies, 0.5))}, p99 ${ms(quantile(latencies, 0.99))}, ` +
        `max ${ms(latencies.at(-1) as number)} (emit → last subscriber read; target p99 ≤ 100 ms)`,
    );
    worker.postMessage('stop');
    await new Promise((resolve) => worker.once('exit', resolve));
  });
}

async function ingest(): Promise<void> {
  await withStack(1_048_576, async (stack) => {
    const bridge = stack.sim!.bridge;
    const lags: number[] = [];
    const start = stack.daemon.events.lastId();
    const sentAt: number[] = [];
    const stop = stack.daemon.events.subscribe((event) => {
      const t = sentAt[event.id - start - 1];
      if (t !== undefined) lags.push(performance.now() - t);
    });
    const seconds = 5;
    for (let s = 0; s < seconds * 100; s += 1) {
      const tick = performance.now();
      for (let k = 0; k < 10; k += 1) {
        sentAt.push(performance.now());
        bridge.events.emit('command.executed', command(`#Say bench ${k}`));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10 - (performance.now() - tick))));
    }
    await eventually(() => stack.daemon.events.lastId() >= start + seconds * 1_000, 30_000);
    lags.sort((a, b) => a - b);
    console.log(
      `steady 1,000 events/s for ${seconds} s: all ${seconds * 1_000} stored; emit → durable ` +
        `p50 ${ms(quantile(lags, 0.5))}, p99 ${ms(quantile(lags, 0.99))}`,
    );
    stop();
    const burst = 20_000;
    const from = stack.daemon.events.lastId();
    const t0 = performance.now();
    for (let k = 0; k < burst; k += 1) bridge.events.emit('command.executed', command(`#Say burst ${k}`));
    await eventually(
      () => stack.daemon.events.lastId() >= from + burst && bridge.events.pending === 0,
      60_000,
    );
    const seconds2 = (performance.now() - t0) / 1_000;
    console.log(
      `burst of ${burst}: stored and acknowledged in ${seconds2.toFixed(2)} s = ` +
        `${Math.round(burst / seconds2)} events/s (mod link + fsync'd log, one process)`,
    );
  });
}

/** Sends `total` 2 KB events past `count` subscribers that never read; memory after a GC. */
async function pressure(count: number): Promise<{ rss: number; heap: number; cut: number }> {
  const limit = 256 * 1024;
  return withStack(limit, async (stack) => {
    const clients = await subscribe(stack, count);
    for (const client of clients) client.pause();
    const filler = 'x'.repeat(2_048);
    const total = 20_000;
    for (let k = 0; k < total; k += 1)
      stack.sim!.bridge.events.emit('command.executed', command(`#Say ${k}`, filler));
    await eventually(() => stack.daemon.events.lastId() >= total, 120_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    global.gc?.();
    const memory = process.memoryUsage();
    for (const client of clients) client.resume();
    await eventually(
      () => clients.every((client) => client.messages.some((m) => m.event === 'stream.closed')),
      60_000,
    );
    const cut = clients.filter((client) =>
      client.messages.some((m) => m.event === 'stream.closed' && m.data.includes('slow_reader')),
    ).length;
    return { rss: memory.rss, heap: memory.heapUsed + memory.external, cut };
  });
}

async function slowSubscribers(): Promise<void> {
  const alone = await pressure(0);
  const slow = await pressure(SLOW);
  console.log(
    `20,000 events of 2 KB (${mb(20_000 * 2_100)}), after a GC: no subscribers heap+external ` +
      `${mb(alone.heap)} (RSS ${mb(alone.rss)}); ${SLOW} subscribers that never read: heap+external ` +
      `${mb(slow.heap)} (RSS ${mb(slow.rss)}), ${slow.cut} of ${SLOW} cut with stream.closed ` +
      `slow_reader (limit 256 KB each: at most ${mb(256 * 1024 * SLOW)} held for them, instead of ` +
      `${mb(20_000 * 2_100 * SLOW)} if buffered)`,
  );
}

await fanOut();
await ingest();
await slowSubscribers();
