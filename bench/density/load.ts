/**
 * The density benchmark's burst, in a process of its own so its CPU and memory are not the
 * daemons': `requests` mixed requests to each daemon, `connections` keep-alive connections each,
 * all daemons at once. Prints one JSON line with the count of each status when done.
 *
 *   node --import tsx bench/density/load.ts '<json: {targets, requests, connections}>'
 *
 * The mix, by turns on every connection: cached reads of three pages (the read cache and the
 * response memo), proxied reads (every one reaches the mod), /healthz, a 401 (a wrong key), a 404
 * (an unknown route) and a 400 (a query that fails validation): what a daemon sees from bots,
 * monitors and stray clients, not one read.
 */
import { Agent, request } from 'node:http';

export interface LoadTarget {
  /** http://127.0.0.1:PORT */
  api: string;
  key: string;
  /** A player with violations, for the proxied read. */
  ref: string;
}

interface Job {
  targets: LoadTarget[];
  requests: number;
  connections: number;
}

interface Step {
  path: string;
  key: 'good' | 'bad' | 'none';
}

function mix(ref: string): Step[] {
  return [
    { path: '/v1/players?limit=50', key: 'good' },
    { path: `/v1/players/${ref}/violations`, key: 'good' },
    { path: '/v1/players?limit=10', key: 'good' },
    { path: '/healthz', key: 'none' },
    { path: `/v1/players/${ref}/violations`, key: 'good' },
    { path: '/v1/players?limit=20', key: 'good' },
    { path: '/v1/players?limit=50', key: 'bad' },
    { path: '/v1/no-such-route', key: 'good' },
    { path: '/v1/players?limit=abc', key: 'good' },
    { path: '/v1/server', key: 'good' },
  ];
}

function get(agent: Agent, api: string, step: Step, key: string): Promise<number> {
  const headers: Record<string, string> = {};
  if (step.key === 'good') headers['authorization'] = `Bearer ${key}`;
  if (step.key === 'bad') headers['authorization'] = `Bearer ${key.slice(0, -4)}AAAA`;
  return new Promise((resolve) => {
    const req = request(`${api}${step.path}`, { agent, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', () => resolve(0));
    });
    req.once('error', () => resolve(0));
    req.end();
  });
}

/** `requests` requests to one daemon over `connections` connections, counted by status. */
async function burst(target: LoadTarget, job: Job, statuses: Map<number, number>): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
  const steps = mix(target.ref);
  let next = 0;
  const worker = async () => {
    while (next < job.requests) {
      const step = steps[next++ % steps.length] as Step;
      const status = await get(agent, target.api, step, target.key);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: job.connections }, worker));
  agent.destroy();
}

const job = JSON.parse(process.argv[2] as string) as Job;
const statuses = new Map<number, number>();
await Promise.all(job.targets.map((target) => burst(target, job, statuses)));
process.stdout.write(`${JSON.stringify({ statuses: Object.fromEntries(statuses) })}\n`);
