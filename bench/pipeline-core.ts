/**
 * CPU per request of the pipeline core alone (no HTTP socket): the work the daemon does for a
 * request between node:http handing it over and the bytes going back, measured as this
 * process's CPU time (user + system) per request, which a busy machine disturbs far less than
 * req/s. A real daemon and simulator in this process (harness/stack.ts), product settings
 * (no response check), the request log at info written to /dev/null, limits out of the way.
 *
 *   npm run bench -- pipeline-core
 *   npx tsx bench/pipeline-core.ts [--requests 20000] [--rounds 3] [--only cached|proxied]
 *                                  [--against DIR]
 *
 * cached: GET /v1/players?limit=50 (read cache, cursor, ETag); proxied: GET
 * /v1/players/{ref}/violations (no-store: the simulator's work, in this process, counts too).
 *
 * `--against DIR` compares with another checkout of the repository (with its node_modules, e.g.
 * `git worktree add /tmp/before main`): its daemon and simulator run in this same process beside
 * this checkout's, the rounds alternate between the two, and the least, first-quartile and median
 * CPU per request of each are printed. On a shared machine that is the fair before/after: both
 * sides meet the same neighbours round by round.
 */
import { existsSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { makeRequest } from '../daemon/http/types.ts';
import type { createLogger } from '../daemon/log/log.ts';
import type { startStack } from '../harness/stack.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    against: { type: 'string' },
  },
});
const UNLIMITED = { limit: 1_000_000_000, windowSec: 60 };
const IN_FLIGHT = 10;
const devNull = openSync('/dev/null', 'w');
const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Stack = Awaited<ReturnType<typeof startStack>>;
type MakeRequest = typeof makeRequest;

interface Side {
  name: string;
  stack: Stack;
  makeRequest: MakeRequest;
  paths: Record<'cached' | 'proxied', string>;
}

/** A daemon and simulator from the checkout at `root` (this one by default), in this process. */
async function startSide(name: string, root: string): Promise<Side> {
  // A file is looked for where this checkout has it, then where older checkouts had it.
  const load = (...files: string[]) => {
    const file = files.find((candidate) => existsSync(resolve(root, candidate))) ?? files[0]!;
    return import(pathToFileURL(resolve(root, file)).href);
  };
  const { makeRequest: request } = (await load('daemon/http/types.ts')) as { makeRequest: MakeRequest };
  const { createLogger: logger } = (await load('daemon/log/log.ts', 'daemon/log.ts')) as {
    createLogger: typeof createLogger;
  };
  const { startStack: start } = (await load('harness/stack.ts', 'test/support/stack.ts')) as {
    startStack: typeof startStack;
  };
  const stack = await start({
    daemon: {
      log: logger({ write: (line) => void writeSync(devNull, line) }),
      pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED, checkResponses: false },
    },
  });
  const ref = await playerWithViolations(stack);
  const paths = { cached: '/v1/players?limit=50', proxied: `/v1/players/${ref}/violations` };
  return { name, stack, makeRequest: request, paths };
}

async function cpuPerRequest(side: Side, path: string, requests: number): Promise<number> {
  const headers = { authorization: `Bearer ${side.stack.key}` };
  let issued = 0;
  const client = async () => {
    while (issued++ < requests) {
      const res = await side.stack.daemon.handle(side.makeRequest({ url: path, headers }));
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

const sorted = (rounds: number[]) => [...rounds].sort((a, b) => a - b);
const at = (rounds: number[], q: number) => sorted(rounds)[Math.floor((rounds.length - 1) * q)] as number;

const sides = [await startSide('this checkout', ROOT)];
if (values.against) sides.push(await startSide(values.against, values.against));
try {
  const counts = { cached: Number(values.requests), proxied: Math.ceil(Number(values.requests) / 4) };
  console.log(`pipeline core, ${IN_FLIGHT} requests in flight, ${values.rounds} rounds`);
  for (const name of ['cached', 'proxied'] as const) {
    if (values.only && values.only !== name) continue;
    const rounds = new Map<Side, number[]>(sides.map((side) => [side, []]));
    for (const side of sides) await cpuPerRequest(side, side.paths[name], Math.ceil(counts[name] / 10)); // warm-up
    for (let i = 0; i < Number(values.rounds); i++) {
      for (const side of sides)
        rounds.get(side)?.push(await cpuPerRequest(side, side.paths[name], counts[name]));
    }
    for (const side of sides) {
      const us = rounds.get(side) as number[];
      const all = us.map((x) => x.toFixed(1)).join(', ');
      const spread =
        sides.length > 1
          ? `, first quartile ${at(us, 0.25).toFixed(1)}, median ${at(us, 0.5).toFixed(1)}`
          : '';
      console.log(
        `${name.padEnd(8)} ${side.paths[name].padEnd(42)} ${Math.min(...us).toFixed(1)} µs CPU/request${spread} (${all})` +
          (sides.length > 1 ? ` ${side.name}` : ''),
      );
    }
  }
} finally {
  for (const side of sides) await side.stack.close();
}
