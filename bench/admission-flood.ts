/**
 * Fair admission at real scale (docs/configuration.md, "Silent connections"): `modgate serve`
 * with its default caps (1,024 connections, 64 per address) as its own process; this process
 * keeps 1,100 silent sockets from 127.0.0.2 open, each reconnecting as soon as it is closed,
 * while a normal client on 127.0.0.1 asks `GET /v1/events?limit=1` with its key, a fresh
 * connection each time (so every request has to be admitted). The flood keeps its side of
 * every connection the daemon ends open for `--hold-ms`, as a peer that never closes would.
 * Prints the share of the client's requests answered 200, with the flood's count beside it.
 * Before fair admission it was 2 of 40: node:http held each refused socket until its peer
 * closed it, the refusals alone filled the cap, and node dropped whatever else came in.
 *
 *   npm run bench -- admission-flood
 *   npx tsx bench/admission-flood.ts [--sockets 1100] [--requests 40] [--pause-ms 100]
 *                                  [--reconnect-ms 10] [--hold-ms 10000]
 */
import { parseArgs } from 'node:util';
import { makeDataDir } from '../harness/data-dir.ts';
import { startServe, stop } from '../harness/processes.ts';
import { askOnce, floodSilent, successRatio } from '../harness/socket-flood.ts';
import { eventually } from '../harness/stack.ts';

const { values } = parseArgs({
  options: {
    sockets: { type: 'string', default: '1100' },
    requests: { type: 'string', default: '40' },
    'pause-ms': { type: 'string', default: '100' },
    'reconnect-ms': { type: 'string', default: '10' },
    'hold-ms': { type: 'string', default: '10000' },
  },
});
const SOCKETS = Number(values.sockets);

const data = await makeDataDir();
const { key } = await data.createKey('--name', 'bench');
const { serve, apiPort } = await startServe(data.dir, ['--log-level', 'warn']);
try {
  const flood = floodSilent(apiPort, '127.0.0.2', SOCKETS, {
    reconnectMs: Number(values['reconnect-ms']),
    holdMs: Number(values['hold-ms']),
  });
  // The flood has come round at least once: every socket was opened, refused or held.
  await eventually(() => flood.opened() >= SOCKETS, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const ask = () => askOnce(apiPort, '/v1/events?limit=1', { authorization: `Bearer ${key}` });
  const { ratio, statuses } = await successRatio(ask, Number(values.requests), Number(values['pause-ms']));
  const opened = flood.opened();
  flood.stop();
  const served = statuses.filter((status) => status === 200).length;
  console.log(`flood: ${SOCKETS} reconnecting silent sockets from 127.0.0.2, ${opened} connections opened`);
  console.log(
    `client on 127.0.0.1: ${served} of ${statuses.length} served (success ratio ${ratio.toFixed(2)})`,
  );
  const others = statuses.filter((status) => status !== 200);
  if (others.length > 0) console.log(`not served: ${others.map((s) => (s === 0 ? 'dropped' : s)).join(' ')}`);
} finally {
  await stop(serve);
  await data.remove();
}
