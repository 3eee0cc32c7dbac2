/**
 * CPU per call of the mod link's codec (PROTOCOL §2) on the body that dominates the proxied
 * read: a `res` carrying a page of 8 violations (about 2.1 KB of msgpack), and the `req` that asks
 * for it; and the daemon's check of that result against its op schema (PROTOCOL §6.2), by zod's
 * runtime parser and by the compiled one the daemon uses. Each figure is the least of 7 rounds, as CPU time (user + system) per call, which a busy
 * machine disturbs less than wall time. To compare two checkouts, run it in each.
 *
 *   npm run bench -- codec
 *   npx tsx bench/codec.ts [--calls 10000]
 */
import { parseArgs } from 'node:util';
import { decodeWith, DEFAULT_CODEC_LIMITS, encode } from '../protocol/codec.ts';
import { scanMsgpack } from '../protocol/msgpack-scan.ts';
import { resultSchema } from '../protocol/ops/compiled.ts';
import { OPS } from '../protocol/ops/index.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '10000' } } });
const CALLS = Number(values.calls);
const ROUNDS = 7;

const violation = (i: number) => ({
  id: 1000 + i,
  type: 'ban',
  action: 'tempban',
  source: 'api',
  reason: 'Griefing near the trader at the north dam',
  issued_by: { platform_id: '76561190000000001', social_id: null, name: 'Admin Bob' },
  applied_at: '2026-11-20T10:15:00.000Z',
  expires_at: i % 2 ? null : '2026-11-21T10:15:00.000Z',
  duration_sec: 86_400,
  metadata: { squad_ban: false },
});
const res = {
  t: 'res',
  id: 42,
  ok: true,
  result: { data: Array.from({ length: 8 }, (_, i) => violation(i)), next: null },
};
const req = {
  t: 'req',
  id: 7,
  op: 'players.violations',
  args: { ref: '76561190000000001', after: null, limit: 50 },
  deadline_ms: 5_000,
};
const frame = encode([res]);

function cpuPerCall(work: () => unknown): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) work();
    const used = process.cpuUsage(before);
    rounds.push((used.user + used.system) / CALLS);
  }
  return Math.min(...rounds);
}

console.log(`mod link codec, a ${frame.length}-byte batch of one res body; least of ${ROUNDS} rounds`);
const cases: Array<[string, () => unknown]> = [
  ['encode the res body', () => encode(res, DEFAULT_CODEC_LIMITS.maxDepth - 1)],
  ['encode the req body', () => encode(req, DEFAULT_CODEC_LIMITS.maxDepth - 1)],
  ['check the batch, building nothing', () => scanMsgpack(frame, DEFAULT_CODEC_LIMITS, [])],
  ['decode the batch (check and build)', () => decodeWith(frame, DEFAULT_CODEC_LIMITS, [])],
  ['check the result, zod runtime', () => OPS['players.violations'].result.safeParse(res.result)],
  ['check the result, compiled', () => resultSchema('players.violations').safeParse(res.result)],
];
for (const [name, work] of cases)
  console.log(`${name.padEnd(34)} ${cpuPerCall(work).toFixed(2)} µs CPU/call`);
