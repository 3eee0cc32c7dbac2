/**
 * Mod-link throughput: request/response round trips per second through a real authenticated
 * session (ModLinkServer.call ↔ bridge handler, loopback ws) side by side with the same
 * request/response as plain msgpack on a raw ws pair, in one process run; plus the AEAD alone.
 *
 *   npx tsx bench/protocol-throughput.ts [--round-ms 300] [--rounds 3]
 *
 * Two plain baselines: "plain" writes each message as it is sent (the naive raw ws pair), and
 * "plain, corked" coalesces the writes of one event-loop turn the way the link does, so the
 * second ratio isolates what authentication itself costs. Both ends of every link run in this one
 * process, so each frame's crypto is paid twice on one thread. Tests never assert on timing.
 */
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { parseArgs } from 'node:util';
import { Packr, Unpackr } from 'msgpackr';
import { WebSocket, WebSocketServer } from 'ws';
import { aeadKey, openFrame, sealFrame } from '../protocol/aead.ts';
import { startModBridge } from '../protocol/bridge.ts';
import { encode } from '../protocol/codec.ts';
import { generateIdentity } from '../protocol/keys.ts';
import { ModLinkServer } from '../protocol/link-server.ts';

const { values } = parseArgs({
  options: { 'round-ms': { type: 'string', default: '300' }, rounds: { type: 'string', default: '3' } },
});
const ROUND_MS = Number(values['round-ms']);
const ROUNDS = Number(values.rounds);
const WINDOWS = [1, 32];
const WARMUP_MS = 1_000;

type Call = () => Promise<unknown>;
interface Link {
  call: Call;
  stop: () => Promise<void>;
}

/** Keeps `window` calls in flight for `ms`; returns completed calls per second. */
async function measure(call: Call, ms: number, window: number): Promise<number> {
  let done = 0;
  const start = performance.now();
  const end = start + ms;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      await call();
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: window }, worker));
  return done / ((performance.now() - start) / 1000);
}

async function authenticatedLink(): Promise<Link> {
  const daemon = generateIdentity();
  const mod = generateIdentity();
  const server = new ModLinkServer({ identity: daemon, trustedModKeys: () => [mod.publicKey] });
  const { port } = await server.listen('127.0.0.1', 0);
  const connected = new Promise((resolve) => server.once('connect', resolve));
  const bridge = startModBridge({
    url: `ws://127.0.0.1:${port}`,
    identity: mod,
    daemonPublicKey: daemon.publicKey,
    modVersion: 'bench',
    handlers: { 'server.status': () => ({ player_count: 42 }) },
  });
  await connected;
  return {
    call: () => server.call('server.status', {}),
    stop: async () => {
      await bridge.close();
      await server.close();
    },
  };
}

/** Sends through `socket`, corking its TCP socket until the next tick when `corked`. */
function sender(socket: WebSocket, corked: boolean): (bytes: Uint8Array) => void {
  const raw = (socket as unknown as { _socket: Duplex })._socket;
  let pending = false;
  return (bytes) => {
    if (corked && !pending) {
      pending = true;
      raw.cork();
      process.nextTick(() => {
        pending = false;
        raw.uncork();
      });
    }
    socket.send(bytes);
  };
}

/** The same request/response, unauthenticated: msgpack over a raw ws pair, ids and deadlines kept. */
async function plainLink(corked: boolean): Promise<Link> {
  const packr = new Packr({ useRecords: false, variableMapSize: true });
  const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((resolve) => wss.once('listening', resolve));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const modSocket = new WebSocket(url, { perMessageDeflate: false });
  const daemonSocket = await new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  await new Promise((resolve) => modSocket.once('open', resolve));
  const modSend = sender(modSocket, corked);
  const daemonSend = sender(daemonSocket, corked);
  modSocket.on('message', (data: Buffer) => {
    const req = unpackr.unpack(data) as { id: number };
    modSend(packr.pack({ t: 'res', id: req.id, ok: true, result: { player_count: 42 } }));
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; timer: NodeJS.Timeout }>();
  daemonSocket.on('message', (data: Buffer) => {
    const res = unpackr.unpack(data) as { id: number; result: unknown };
    const entry = pending.get(res.id);
    if (!entry) return;
    pending.delete(res.id);
    clearTimeout(entry.timer);
    entry.resolve(res.result);
  });
  let lastId = 0;
  const call: Call = () =>
    new Promise((resolve, reject) => {
      const id = ++lastId;
      const timer = setTimeout(() => reject(new Error('timeout')), 5_000);
      pending.set(id, { resolve, timer });
      daemonSend(packr.pack({ t: 'req', id, op: 'server.status', args: {}, deadline_ms: 5_000 }));
    });
  return {
    call,
    stop: async () => {
      modSocket.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

const RESPONSE = { t: 'res', id: 123456, ok: true, result: { player_count: 42 } };

/** Seal + open of a typical response frame body, no socket. */
function aeadOnly(ms: number): number {
  const key = aeadKey(new Uint8Array(32).fill(7));
  const plaintext = encode(RESPONSE);
  let seq = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 256; i += 1) {
      seq += 1;
      const opened = openFrame(key, sealFrame(key, seq, plaintext), 1 << 20);
      if (!opened.ok) throw opened.error;
    }
  }
  return seq / ((performance.now() - start) / 1000);
}

/** Best of ROUNDS for each link, rounds interleaved so drift hits all links alike. */
async function compare(links: Record<string, Link>, window: number): Promise<Record<string, number>> {
  const best: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, link] of Object.entries(links)) {
      best[name] = Math.max(best[name] ?? 0, await measure(link.call, ROUND_MS, window));
    }
  }
  return best;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(9);

async function main(): Promise<void> {
  const links = {
    plain: await plainLink(false),
    corked: await plainLink(true),
    auth: await authenticatedLink(),
  };
  for (const link of Object.values(links)) await measure(link.call, WARMUP_MS, 32); // let the JIT settle
  console.log(`mod link round trips (req → res), best of ${ROUNDS} × ${ROUND_MS} ms, one process, loopback`);
  for (const window of WINDOWS) {
    const r = await compare(links, window);
    const [plain, corked, auth] = [r['plain'] ?? 0, r['corked'] ?? 0, r['auth'] ?? 0];
    console.log(`\n  ${window} in flight`);
    console.log(`    plain msgpack over ws            ${fmt(plain)} req/s`);
    console.log(`    plain msgpack over ws, corked    ${fmt(corked)} req/s`);
    console.log(`    authenticated session            ${fmt(auth)} req/s`);
    console.log(
      `    ratio authenticated / plain      ${(auth / plain).toFixed(2).padStart(9)}   (target ≥ 0.90)`,
    );
    console.log(`    ratio authenticated / corked     ${(auth / corked).toFixed(2).padStart(9)}`);
  }
  for (const link of Object.values(links)) await link.stop();
  const size = encode(RESPONSE).length;
  console.log(`\n  AEAD alone: seal + open of a ${size}-byte body ${fmt(aeadOnly(1000))} frames/s`);
}

await main();
