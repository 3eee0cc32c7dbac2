/**
 * Mod-link throughput: `server.status` round trips (req → res) per second over loopback ws, three
 * links side by side in one run:
 *
 * - plain: unauthenticated msgpack, one WebSocket message per body, written as it is produced;
 * - coalesced: the same, but each side queues its bodies and sends them as one msgpack array per
 *   event-loop turn (setImmediate), the batching the mod link does (PROTOCOL §4.2): the fair
 *   baseline for a batching protocol;
 * - authenticated: the real mod link, ModLinkServer.call ↔ ModBridge handler.
 *
 * The plain links keep what any request/response protocol needs (ids, a pending map, a timer per
 * call) and nothing else: no validation, no schemas, no AEAD. The target is authenticated ≥ 0.90
 * of plain. Then the AEAD's share of a round trip, at 1 in flight and under load.
 *
 *   npx tsx bench/protocol-throughput.ts [--round-ms 300] [--rounds 3]
 *
 * Both ends of every link run in this one process, so all the work of a round trip (each frame's
 * seal and open included) is paid on one thread. Rounds are interleaved so drift hits all links
 * alike; each link's best round is reported. Tests never assert on timing.
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Packr, Unpackr } from 'msgpackr';
import { WebSocket, WebSocketServer } from 'ws';
import { aeadKey, openFrame, sealFrame } from '../protocol/aead.ts';
import { startModBridge } from '../bridge/bridge.ts';
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
const TARGET = 0.9;

interface Link {
  call: () => Promise<unknown>;
  /** WebSocket messages the daemon end has received so far (plain links only). */
  messages: () => number;
  stop: () => Promise<void>;
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
    messages: () => NaN,
    stop: async () => {
      await bridge.close();
      await server.close();
    },
  };
}

const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

type Body = Record<string, unknown>;

/** Writes each body at once, or (coalesced) one array of this turn's bodies per message. */
function sender(socket: WebSocket, coalesce: boolean): (body: Body) => void {
  if (!coalesce) return (body) => socket.send(packr.pack(body));
  let queue: Body[] = [];
  const flush = (): void => {
    const batch = queue;
    queue = [];
    socket.send(packr.pack(batch));
  };
  return (body) => {
    if (queue.push(body) === 1) setImmediate(flush);
  };
}

/** Calls `handle` for each body of a message: the message itself, or each entry when coalesced. */
function receiver(coalesce: boolean, handle: (body: Body) => void): (data: Buffer) => void {
  return (data) => {
    const value = unpackr.unpack(data) as Body | Body[];
    if (!coalesce) return handle(value as Body);
    for (const body of value as Body[]) handle(body);
  };
}

/** The same request/response, unauthenticated: msgpack over a raw ws pair, ids and deadlines kept. */
async function plainLink(coalesce: boolean): Promise<Link> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((resolve) => wss.once('listening', resolve));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const modSocket = new WebSocket(url, { perMessageDeflate: false });
  const daemonSocket = await new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  await new Promise((resolve) => modSocket.once('open', resolve));
  const modSend = sender(modSocket, coalesce);
  const daemonSend = sender(daemonSocket, coalesce);
  modSocket.on(
    'message',
    receiver(coalesce, (req) => modSend({ t: 'res', id: req['id'], ok: true, result: { player_count: 42 } })),
  );
  const pending = new Map<number, { resolve: (v: unknown) => void; timer: NodeJS.Timeout }>();
  let messages = 0;
  const settle = receiver(coalesce, (res) => {
    const entry = pending.get(res['id'] as number);
    if (!entry) return;
    pending.delete(res['id'] as number);
    clearTimeout(entry.timer);
    entry.resolve(res['result']);
  });
  daemonSocket.on('message', (data: Buffer) => {
    messages += 1;
    settle(data);
  });
  let lastId = 0;
  const call = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = ++lastId;
      const timer = setTimeout(() => reject(new Error('timeout')), 5_000);
      pending.set(id, { resolve, timer });
      daemonSend({ t: 'req', id, op: 'server.status', args: {}, deadline_ms: 5_000 });
    });
  return {
    call,
    messages: () => messages,
    stop: async () => {
      modSocket.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Keeps `window` calls in flight for `ms`; returns completed calls per second. */
async function measure(link: Link, ms: number, window: number): Promise<number> {
  let done = 0;
  const start = performance.now();
  const end = start + ms;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      await link.call();
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: window }, worker));
  return done / ((performance.now() - start) / 1000);
}

type Name = 'plain' | 'coalesced' | 'auth';

/** Best of ROUNDS for each link, rounds interleaved; plus the coalesced link's bodies per message. */
async function compare(links: Record<Name, Link>, window: number): Promise<Record<Name, number>> {
  const best: Record<Name, number> = { plain: 0, coalesced: 0, auth: 0 };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const name of Object.keys(links) as Name[]) {
      best[name] = Math.max(best[name], await measure(links[name], ROUND_MS, window));
    }
  }
  return best;
}

/** Bodies per WebSocket message the coalesced baseline sends back at this window. */
async function bodiesPerMessage(link: Link, window: number): Promise<number> {
  const before = link.messages();
  const calls = (await measure(link, ROUND_MS, window)) * (ROUND_MS / 1000);
  return calls / (link.messages() - before);
}

const REQ = { t: 'req', id: 123456, op: 'server.status', args: {}, deadline_ms: 5_000 };
const RES = { t: 'res', id: 123456, ok: true, result: { player_count: 42 } };

/** Microseconds for one seal and for one open of a frame holding `bodies`, no socket; best of 3. */
function aeadMicros(bodies: unknown[], count = 20_000): { seal: number; open: number } {
  const key = aeadKey(new Uint8Array(32).fill(7));
  const plaintext = encode(bodies);
  const best = { seal: Infinity, open: Infinity };
  for (let run = 0, seq = 0; run < 3; run += 1) {
    const frames: Uint8Array[] = [];
    let start = performance.now();
    for (let i = 0; i < count; i += 1) frames.push(sealFrame(key, (seq += 1), plaintext));
    best.seal = Math.min(best.seal, ((performance.now() - start) * 1000) / count);
    start = performance.now();
    for (const frame of frames) if (!openFrame(key, frame, 1 << 20).ok) throw new Error('open failed');
    best.open = Math.min(best.open, ((performance.now() - start) * 1000) / count);
  }
  return best;
}

/** The four AEAD calls of a round trip (seal and open of the req frame and of the res frame), per body. */
function aeadPerRoundTrip(bodiesPerFrame: number): { total: number; detail: string } {
  const n = Math.max(1, Math.round(bodiesPerFrame));
  const req = aeadMicros(Array.from({ length: n }, () => REQ));
  const res = aeadMicros(Array.from({ length: n }, () => RES));
  const total = (req.seal + req.open + res.seal + res.open) / n;
  const f = (x: number): string => x.toFixed(1);
  return {
    total,
    detail: `req frame ${f(req.seal)} / ${f(req.open)}, res frame ${f(res.seal)} / ${f(res.open)}`,
  };
}

const rate = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(9);
const micros = (n: number): string => n.toFixed(1).padStart(8);
const ratio = (n: number): string =>
  `${n.toFixed(2).padStart(9)}   ${n >= TARGET ? 'meets' : 'misses'} ≥ ${TARGET}`;

function report(window: number, r: Record<Name, number>, bodies: number): void {
  console.log(`\n  ${window} in flight                              req/s   µs/round trip`);
  const rows: Array<[string, number]> = [
    ['plain msgpack, one message per body', r.plain],
    ['plain msgpack, coalesced per turn  ', r.coalesced],
    ['authenticated session (coalesced)  ', r.auth],
  ];
  for (const [label, value] of rows) console.log(`    ${label} ${rate(value)} ${micros(1e6 / value)}`);
  console.log(`    ratio authenticated / plain         ${ratio(r.auth / r.plain)}`);
  console.log(`    ratio authenticated / coalesced     ${ratio(r.auth / r.coalesced)}`);
  console.log(`    (coalesced baseline: ${bodies.toFixed(2)} bodies per message)`);
}

interface Result {
  rates: Record<Name, number>;
  bodies: number;
}

/**
 * The AEAD's share of an authenticated round trip. At 1 in flight every frame holds one body and
 * the four calls cannot be amortised; at 32 the frames hold what one turn produced, estimated by
 * the coalesced baseline's bodies per message (the link batches the same way, §4.2).
 */
function explain(results: Map<number, Result>): void {
  console.log(
    '\n  AEAD per round trip (node:crypto ChaCha20-Poly1305; µs of seal / open per frame in brackets)',
  );
  const aeadAt = new Map<number, number>();
  for (const [window, { rates, bodies }] of results) {
    const aead = aeadPerRoundTrip(bodies);
    aeadAt.set(window, aead.total);
    const roundTrip = 1e6 / rates.auth;
    console.log(
      `    ${String(window).padStart(2)} in flight, ${bodies.toFixed(1).padStart(4)} bodies per frame: ` +
        `${micros(aead.total)} of ${micros(roundTrip)} µs = ${pct(aead.total / roundTrip)}   (${aead.detail})`,
    );
  }
  const one = results.get(1) as Result;
  const [auth, coalesced] = [1e6 / one.rates.auth, 1e6 / one.rates.coalesced];
  const aead = aeadAt.get(1) as number;
  console.log(
    `    at 1 in flight, the rest of the link stack over the coalesced baseline: ${micros(auth - coalesced - aead)} µs`,
  );
  console.log(
    '      (codec pre-scan, body and op-schema checks, request context, dispatch; the baseline has none)',
  );
  console.log(
    `    at 1 in flight, the best authenticated / coalesced ratio were all of that free: ${(coalesced / (coalesced + aead)).toFixed(2)}`,
  );
}

const pct = (n: number): string => `${(n * 100).toFixed(0).padStart(5)} %`;

async function main(): Promise<void> {
  const links: Record<Name, Link> = {
    plain: await plainLink(false),
    coalesced: await plainLink(true),
    auth: await authenticatedLink(),
  };
  for (const link of Object.values(links)) await measure(link, WARMUP_MS, 32); // let the JIT settle
  console.log(`mod link round trips (req → res), best of ${ROUNDS} × ${ROUND_MS} ms, one process, loopback`);
  const results = new Map<number, Result>();
  for (const window of WINDOWS) {
    const rates = await compare(links, window);
    const bodies = await bodiesPerMessage(links.coalesced, window);
    results.set(window, { rates, bodies });
    report(window, rates, bodies);
  }
  for (const link of Object.values(links)) await link.stop();
  explain(results);
}

await main();
