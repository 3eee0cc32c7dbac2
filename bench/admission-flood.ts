/**
 * Fair admission at real scale (docs/configuration.md, "Silent connections"): `modgate serve`
 * with its default caps (1,024 connections, 64 per address) as its own process; this process
 * keeps `--sockets` sockets open from `--addresses` local addresses (127.0.0.2 onwards, spread
 * evenly), each reconnecting as soon as it is closed, while a normal client on 127.0.0.1 asks
 * `GET /v1/events?limit=1` with its key, a fresh connection each time (so every request has to
 * be admitted). `--mode silent` sockets send nothing; `--mode partial` ones send the start of a
 * request head and stall (held until `headers_timeout_ms` unless evicted). `--trusted` lists the
 * flooding addresses in `trusted_proxies`, so the per-address cap does not apply to them. The
 * flood keeps its side of every connection the daemon ends open for `--hold-ms`, as a peer that
 * never closes would. Prints the share of the client's requests answered 200, with the flood's
 * count beside it. Before fair admission, 1,100 silent sockets from one address let 2 of 40
 * through: node:http held each refused socket until its peer closed it, the refusals alone
 * filled the cap, and node dropped whatever else came in.
 *
 *   npm run bench -- admission-flood
 *   npx tsx bench/admission-flood.ts [--mode silent|partial] [--sockets 1100] [--addresses 1]
 *                                  [--trusted] [--requests 40] [--pause-ms 100]
 *                                  [--reconnect-ms 10] [--hold-ms 10000]
 *
 * The partial-head figures in docs/operations.md ("Floods of idle connections") reconnect at
 * once (`--hold-ms 0`) and ask 100 times, 100 ms apart, past one header timeout:
 *
 *   npx tsx bench/admission-flood.ts --mode partial --addresses 17 --sockets 1088 --hold-ms 0 \
 *     --requests 100 --pause-ms 100
 *   npx tsx bench/admission-flood.ts --mode partial --trusted --sockets 1800 --hold-ms 0 ...
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeDataDir } from '../harness/data-dir.ts';
import { startServe, stop } from '../harness/processes.ts';
import { askOnce, type Flood, floodSockets, PARTIAL_HEAD, successRatio } from '../harness/socket-flood.ts';
import { eventually } from '../harness/stack.ts';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'silent' },
    sockets: { type: 'string', default: '1100' },
    addresses: { type: 'string', default: '1' },
    trusted: { type: 'boolean', default: false },
    requests: { type: 'string', default: '40' },
    'pause-ms': { type: 'string', default: '100' },
    'reconnect-ms': { type: 'string', default: '10' },
    'hold-ms': { type: 'string', default: '10000' },
  },
});
const SOCKETS = Number(values.sockets);
if (values.mode !== 'silent' && values.mode !== 'partial') throw new Error('--mode is silent or partial');
const MODE = values.mode;
/** 127.0.0.2 onwards, into 127.0.1.x and beyond (all loopback); 127.0.0.1 is the client's. */
const ADDRESSES = Array.from(
  { length: Number(values.addresses) },
  (_, i) => `127.0.${(i + 2) >> 8}.${(i + 2) & 255}`,
);
if (ADDRESSES.length < 1 || ADDRESSES.length > 4_000) throw new Error('--addresses is 1 to 4000');

const data = await makeDataDir();
const { key } = await data.createKey('--name', 'bench');
const config = join(data.dir, 'modgate.toml');
await writeFile(config, values.trusted ? `[api]\ntrusted_proxies = ${JSON.stringify(ADDRESSES)}\n` : '');
const { serve, apiPort } = await startServe(data.dir, { extra: ['--log-level', 'warn', '--config', config] });
try {
  const floods = ADDRESSES.map((address, i) =>
    floodSockets(apiPort, address, share(i), {
      reconnectMs: Number(values['reconnect-ms']),
      holdMs: Number(values['hold-ms']),
      send: MODE === 'partial' ? PARTIAL_HEAD : undefined,
    }),
  );
  const flood = joined(floods);
  // The flood has come round at least once: every socket was opened, refused or held.
  await eventually(() => flood.opened() >= SOCKETS, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const ask = () => askOnce(apiPort, '/v1/events?limit=1', { authorization: `Bearer ${key}` });
  const { ratio, statuses } = await successRatio(ask, Number(values.requests), Number(values['pause-ms']));
  const opened = flood.opened();
  flood.stop();
  const served = statuses.filter((status) => status === 200).length;
  const from = ADDRESSES.length === 1 ? ADDRESSES[0] : `${ADDRESSES.length} addresses from 127.0.0.2`;
  const trusted = values.trusted ? ' (trusted proxies)' : '';
  console.log(
    `flood: ${SOCKETS} reconnecting ${MODE} sockets from ${from}${trusted}, ${opened} connections opened`,
  );
  console.log(
    `client on 127.0.0.1: ${served} of ${statuses.length} served (success ratio ${ratio.toFixed(2)})`,
  );
  const others = statuses.filter((status) => status !== 200);
  if (others.length > 0) console.log(`not served: ${others.map((s) => (s === 0 ? 'dropped' : s)).join(' ')}`);
} finally {
  await stop(serve);
  await data.remove();
}

/** The sockets of the `i`th address: the total spread evenly, the remainder to the first ones. */
function share(i: number): number {
  return Math.floor(SOCKETS / ADDRESSES.length) + (i < SOCKETS % ADDRESSES.length ? 1 : 0);
}

function joined(floods: Flood[]): Flood {
  const sum = (count: (flood: Flood) => number) => floods.reduce((total, flood) => total + count(flood), 0);
  return {
    opened: () => sum((flood) => flood.opened()),
    open: () => sum((flood) => flood.open()),
    stop: () => floods.forEach((flood) => flood.stop()),
  };
}
