/**
 * CPU per request of the pipeline core alone (no HTTP socket): the work the daemon does for a
 * request between node:http handing it over and the bytes going back, measured as this
 * process's CPU time (user + system) per request, which a busy machine disturbs far less than
 * req/s. A real daemon and simulator in this process (test/support/stack.ts), product settings
 * (no response check), the request log at info written to /dev/null, limits out of the way.
 *
 *   npm run bench -- pipeline-core
 *   npx tsx bench/pipeline-core.ts [--requests 20000] [--rounds 3] [--only cached|proxied]
 *
 * cached: GET /v1/players?limit=50 (read cache, cursor, ETag); proxied: GET
 * /v1/players/{ref}/violations (no-store: the simulator's work, in this process, counts too).
 */
import { openSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { makeRequest } from '../daemon/http/types.ts';
import { createLogger } from '../daemon/log.ts';
import { startStack, type Stack } from '../test/support/stack.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const UNLIMITED = { limit: 1_000_000_000, windowSec: 60 };
const IN_FLIGHT = 10;

async function cpuPerRequest(stack: Stack, path: string, requests: number): Promise<number> {
  const headers = { authorization: `Bearer ${stack.key}` };
  let issued = 0;
  const client = async () => {
    while (issued++ < requests) {
      const res = await stack.daemon.handle(makeRequest({ url: path, headers }));
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: IN_FLIGHT }, client));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

async function playerWithViolations(stack: Stack): Promise<string> {
  const list = (await stack.call('/v1/players?limit=100')).json as { data: Array<{ platform_id: string }> };
  for (const { platform_id: ref } of list.data) {
    const page = (await stack.call(`/v1/players/${ref}/violations`)).json as { data: unknown[] };
    if (page.data.length >= 3) return ref;
  }
  throw new Error('no player with violations');
}

const devNull = openSync('/dev/null', 'w');
const stack = await startStack({
  daemon: {
    log: createLogger({ write: (line) => void writeSync(devNull, line) }),
    pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED, checkResponses: false },
  },
});
try {
  const ref = await playerWithViolations(stack);
  const paths = {
    cached: ['/v1/players?limit=50', Number(values.requests)],
    proxied: [`/v1/players/${ref}/violations`, Math.ceil(Number(values.requests) / 4)],
  } as const;
  console.log(`pipeline core, ${IN_FLIGHT} requests in flight, best of ${values.rounds} rounds`);
  for (const [name, [path, requests]] of Object.entries(paths)) {
    if (values.only && values.only !== name) continue;
    await cpuPerRequest(stack, path, Math.ceil(requests / 10)); // warm-up
    const rounds: number[] = [];
    for (let i = 0; i < Number(values.rounds); i++) rounds.push(await cpuPerRequest(stack, path, requests));
    const all = rounds.map((us) => us.toFixed(1)).join(', ');
    console.log(
      `${name.padEnd(8)} ${path.padEnd(42)} ${Math.min(...rounds).toFixed(1)} µs CPU/request (${all})`,
    );
  }
} finally {
  await stack.close();
}
