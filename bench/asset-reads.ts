/**
 * Asset reads through a real daemon and simulator (one process), side by side in one run:
 *
 * 1. Cached reads: requests/s of `GET /v1/vehicles?limit=50` and `GET /v1/vehicles/{id}` through
 *    the daemon's HTTP listener (auth, rate limit, validation, read cache, ETag) against a raw
 *    node:http server answering the same bytes, with N keep-alive clients and a bounded number of
 *    requests per round. The daemon runs the product's settings; a third column runs the same
 *    pipeline with the response schema check the tests use, to show its cost. Rounds interleave;
 *    each server's best round counts.
 * 2. Deep page against first page on the 100,000-player world: latency of uncached list pages
 *    that start near the front and near the end of the vehicle list, one request in flight, the
 *    two groups interleaved. Each request names a distinct position, so none is a read-cache hit;
 *    the cursors are minted with the daemon's own codec, exactly as the daemon issues them.
 *
 *   npx tsx bench/asset-reads.ts [--clients 32] [--requests 20000] [--rounds 3] [--players 100000]
 *
 * The clients share the process (and its one thread) with the server they load, for every server
 * alike. Tests never assert on timing.
 */
import { Agent, createServer, request, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { CursorCodec } from '../daemon/http/cursor.ts';
import { startHttpServer } from '../daemon/http/node-adapter.ts';
import { createPipeline } from '../daemon/http/pipeline.ts';
import { silentLogger } from '../daemon/log/log.ts';
import { ROUTES } from '../daemon/routes/index.ts';
import { createWorld } from '../mod-sim/world/index.ts';
import { startStack, type Stack } from '../harness/stack.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '32' },
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    players: { type: 'string', default: '100000' },
    samples: { type: 'string', default: '300' },
  },
});
const CLIENTS = Number(values.clients);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const SAMPLES = Number(values.samples);
const UNLIMITED = { limit: 1_000_000_000, windowSec: 60 };

interface Target {
  port: number;
  path: string;
  headers: OutgoingHttpHeaders;
}

/** One GET on a keep-alive agent; resolves with the status once the body is read. */
function get(agent: Agent, target: Target): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: target.port, path: target.path, headers: target.headers, agent },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** REQUESTS GETs over CLIENTS keep-alive connections; returns requests per second. */
async function throughput(target: Target): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  let issued = 0;
  const client = async (): Promise<void> => {
    while (issued < REQUESTS) {
      issued += 1;
      const status = await get(agent, target);
      if (status !== 200) throw new Error(`${target.path}: status ${status}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const rate = REQUESTS / ((performance.now() - start) / 1000);
  agent.destroy();
  return rate;
}

/** A node:http server that answers every request with one fixed response. */
async function rawServer(headers: Record<string, string>, body: Buffer) {
  const server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** The same daemon pipeline (same link, data dir, routes) with the response schema check the tests run. */
async function checkedDaemon(stack: Stack) {
  const handle = createPipeline({
    routes: ROUTES,
    snapshot: () => stack.daemon.snapshot.current(),
    link: stack.daemon.link,
    openapi: {},
    keyRateLimit: UNLIMITED,
    edgeRateLimit: UNLIMITED,
    checkResponses: true,
  });
  const http = await startHttpServer(handle, { listen: { host: '127.0.0.1', port: 0 }, log: silentLogger });
  return { port: http.address.port, close: () => http.close() };
}

/** The daemon's response to `path`, headers and body, for the raw server to replay. */
async function fetchOnce(port: number, path: string, headers: OutgoingHttpHeaders) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: headers as Record<string, string> });
  const body = Buffer.from(await res.arrayBuffer());
  const replay: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control', 'etag', 'api-version', 'x-content-type-options']) {
    const value = res.headers.get(name);
    if (value !== null) replay[name] = value;
  }
  return { headers: replay, body };
}

interface Latency {
  p50: number;
  p95: number;
  mean: number;
}

function summarize(times: number[]): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { p50: at(0.5), p95: at(0.95), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

/** Latency in ms of each path of each group, one request in flight, the groups interleaved. */
async function latencies(port: number, headers: OutgoingHttpHeaders, groups: string[][]): Promise<Latency[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = groups.map((): number[] => []);
  for (let i = 0; i < Math.max(...groups.map((paths) => paths.length)); i += 1) {
    for (const [g, paths] of groups.entries()) {
      const path = paths[i];
      if (path === undefined) continue;
      const start = performance.now();
      const status = await get(agent, { port, path, headers });
      times[g]?.push(performance.now() - start);
      if (status !== 200) throw new Error(`${path}: status ${status}`);
    }
  }
  agent.destroy();
  return times.map(summarize);
}

const fmt = (n: number, width = 9, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }).padStart(width);

async function compareCached(stack: Stack, auth: OutgoingHttpHeaders, paths: string[]): Promise<void> {
  const daemonPort = stack.daemon.api.port;
  const checked = await checkedDaemon(stack);
  console.log(
    `\ncached reads: ${CLIENTS} keep-alive clients, ${REQUESTS} requests a round, best of ${ROUNDS}`,
  );
  console.log('path                            daemon req/s  with check req/s  raw req/s  daemon/raw');
  for (const path of paths) {
    const sample = await fetchOnce(daemonPort, path, auth); // also fills the read cache
    const raw = await rawServer(sample.headers, sample.body);
    const best = { daemon: 0, checked: 0, raw: 0 };
    for (let round = 0; round < ROUNDS; round += 1) {
      best.daemon = Math.max(best.daemon, await throughput({ port: daemonPort, path, headers: auth }));
      best.checked = Math.max(best.checked, await throughput({ port: checked.port, path, headers: auth }));
      best.raw = Math.max(best.raw, await throughput({ port: raw.port, path, headers: auth }));
    }
    raw.close();
    const label = path.length > 31 ? `${path.slice(0, 28)}...` : path.padEnd(31);
    const ratio = fmt(best.daemon / best.raw, 11, 2);
    console.log(`${label} ${fmt(best.daemon, 12)} ${fmt(best.checked, 17)} ${fmt(best.raw, 10)} ${ratio}`);
    console.log(`${' '.repeat(31)} response bytes ${sample.body.length}`);
  }
  await checked.close();
}

async function compareDepth(stack: Stack, auth: OutgoingHttpHeaders): Promise<void> {
  const vehicles = stack.sim?.world.assets.vehicles;
  if (!vehicles) throw new Error('no simulator');
  const codec = new CursorCodec(stack.daemon.snapshot.current().identity.daemonSecretKey);
  const scope = { keyId: stack.key.split('_')[2] as string, route: 'listVehicles', filters: {} };
  const after = (index: number) =>
    `/v1/vehicles?limit=50&cursor=${encodeURIComponent(codec.encode(scope, vehicles.keyAt(index)))}`;
  const positions = (from: number) => Array.from({ length: SAMPLES }, (_, i) => after(from + i));
  const port = stack.daemon.api.port;
  // Warm-up on positions neither group uses: the middle of the list.
  await latencies(port, auth, [positions(Math.floor((vehicles.length - SAMPLES) / 2))]);
  const [first, deep] = (await latencies(port, auth, [
    positions(0),
    positions(vehicles.length - 51 - SAMPLES),
  ])) as [Latency, Latency];
  console.log(
    `\nuncached pages of 50 vehicles out of ${vehicles.length}, ${SAMPLES} distinct positions each`,
  );
  console.log('page                         p50 ms   p95 ms   mean ms');
  const row = (label: string, r: Latency) =>
    console.log(`${label.padEnd(25)} ${fmt(r.p50, 8, 2)} ${fmt(r.p95, 8, 2)} ${fmt(r.mean, 9, 2)}`);
  row(`first (after 0..${SAMPLES - 1})`, first);
  row(`deep (last ${SAMPLES} pages)`, deep);
  console.log(`deep/first (p50)          ${fmt(deep.p50 / first.p50, 8, 2)}`);
}

async function main(): Promise<void> {
  const built = performance.now();
  const world = createWorld({ players: Number(values.players) });
  console.log(`world: ${values.players} players, built in ${fmt(performance.now() - built, 0)} ms`);
  const stack = await startStack({
    // The product's own settings: no response check (the tests turn it on).
    daemon: { pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED, checkResponses: false } },
    sim: { world },
  });
  try {
    const auth = { authorization: `Bearer ${stack.key}` };
    const bigId = world.assets.vehicles.values().find((v) => v.entity_id.length >= 18)?.entity_id as string;
    await compareCached(stack, auth, ['/v1/vehicles?limit=50', `/v1/vehicles/${bigId}`]);
    await compareDepth(stack, auth);
  } finally {
    await stack.close();
  }
}

await main();
