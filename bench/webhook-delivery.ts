/**
 * Webhook delivery keeping up with the event log: events appended at a steady rate (default
 * 1,000/s for 10 s) into the real, fsync'd FileEventLog, delivered by the real WebhookService to
 * a loopback receiver that answers 204, one signed POST per event (standard format) and to a
 * Discord-format endpoint (up to ten events per message) side by side.
 *
 * Reports, per endpoint: delivered per second against the offered rate (the target is ≥ 0.99:
 * keeping up), and the lag from append to receipt (p50, p99, max). Tests never assert on timing.
 *
 *   npx tsx bench/webhook-delivery.ts [--rate 1000] [--seconds 10]
 */
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { fork } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../cli/program.ts';
import { FileEventLog } from '../daemon/events/event-log.ts';
import { WebhookService } from '../daemon/events/webhooks/webhook-service.ts';
import { silentLogger } from '../daemon/log/log.ts';

const { values } = parseArgs({
  options: { rate: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '10' } },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const TICK_MS = 10;

const quiet = { stdout: { write: () => true }, stderr: { write: (t: string) => process.stderr.write(t) } };
const cli = async (...argv: string[]) => {
  let out = '';
  const code = await runCli(argv, { ...quiet, stdout: { write: (t: string) => (out += t) } });
  if (code !== 0) throw new Error(`modgate ${argv.join(' ')} failed`);
  return out;
};

/**
 * The receiver runs in its own process, as it would on another host; receipt times are absolute
 * (performance.timeOrigin + now()) so both processes' clocks compare. It reports at the end.
 */
const RECEIVER = `
const { createServer } = require('node:http');
const got = { standard: [], discord: [] };
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c)).on('end', () => {
    const now = performance.timeOrigin + performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString());
    if (req.url === '/standard') got.standard.push([body.id, now]);
    for (const e of body.embeds ?? []) got.discord.push([Number(/^event (\\d+)/.exec(e.footer.text)[1]), now]);
    res.writeHead(204).end();
  });
}).listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send({ got }));
`;
const scratch = await mkdtemp(join(tmpdir(), 'modgate-bench-'));
await writeFile(join(scratch, 'receiver.cjs'), RECEIVER);
const child = fork(join(scratch, 'receiver.cjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [{ port }] = (await once(child, 'message')) as [{ port: number }];
const base = `http://127.0.0.1:${port}`;
const now = () => performance.timeOrigin + performance.now();

const dir = join(scratch, 'data');
await cli('init', '--data-dir', dir);
await cli('webhooks', 'add', '--data-dir', dir, '--url', `${base}/standard`, '--events', 'all');
await cli(
  'webhooks',
  'add',
  '--data-dir',
  dir,
  '--url',
  `${base}/discord`,
  '--events',
  'all',
  '--format',
  'discord',
);
const eventLog = await FileEventLog.open(dir);
const service = await WebhookService.start({
  dataDir: dir,
  eventLog,
  serverId: 'srv_bench',
  logger: silentLogger,
});

const appendedAt = new Map<number, number>();
const total = RATE * SECONDS;
const started = now();
let appended = 0;
while (appended < total) {
  const due = Math.min(total, Math.floor(((now() - started) / 1000) * RATE));
  const batch: Promise<unknown>[] = [];
  for (; appended < due; appended++) {
    const at = now();
    batch.push(
      eventLog
        .append({
          type: 'player.banned',
          data: { player: { platform_id: '76561198000000001' }, reason: 'bench' },
        })
        .then((event) => event && appendedAt.set(event.id, at)),
    );
  }
  await Promise.all(batch);
  await new Promise((resolve) => setTimeout(resolve, TICK_MS));
}
const offeredSeconds = (now() - started) / 1000;
await eventLog.flushed();
const delivered = () =>
  ['standard', 'discord'].map(
    (id) => service.outbox(service.list().find((e) => e.url.endsWith(id))!.id).position,
  );
const deadline = now() + 60_000;
while (delivered().some((position) => position < eventLog.lastId()) && now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
child.send('report');
const [{ got }] = (await once(child, 'message')) as [
  { got: Record<'standard' | 'discord', [number, number][]> },
];
const received = { standard: new Map(got.standard), discord: new Map(got.discord) };

function report(name: string, times: Map<number, number>): void {
  const lags = [...times].map(([id, at]) => at - (appendedAt.get(id) ?? at)).sort((a, b) => a - b);
  const last = Math.max(...times.values());
  const rate = times.size / ((last - started) / 1000);
  const pct = (p: number) => (lags[Math.min(lags.length - 1, Math.floor(p * lags.length))] ?? NaN).toFixed(1);
  console.log(
    `${name.padEnd(9)} delivered ${times.size}/${total}  ${rate.toFixed(0)}/s vs offered ${(total / offeredSeconds).toFixed(0)}/s ` +
      `(ratio ${(rate / (total / offeredSeconds)).toFixed(3)}; target ≥ 0.99)  lag p50 ${pct(0.5)} ms  p99 ${pct(0.99)} ms  max ${lags.at(-1)?.toFixed(1)} ms`,
  );
}
console.log(`webhook delivery: ${total} events at ${RATE}/s into the fsync'd log, 2 endpoints`);
report('standard', received.standard);
report('discord', received.discord);
await service.close();
await eventLog.close();
child.kill();
await rm(scratch, { recursive: true, force: true });
