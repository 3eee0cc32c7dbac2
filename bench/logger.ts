/**
 * The request log line, side by side: the hand-rolled logger modgate had (JSON.stringify of the
 * whole object, then process.stdout.write) against pino as daemon/log.ts configures it (its own
 * serializer, sonic-boom on file descriptor 1, asynchronous). Two measurements:
 *
 * 1. format only: each logger hands its finished line to a function that drops it, so what is
 *    measured is building the line;
 * 2. to a pipe, as under systemd: each logger runs in a child process whose stdout is a pipe
 *    this process drains (journald reads the daemon's stdout the same way). pino runs as
 *    daemon/log.ts configures it. (pino's synchronous writer is left out: on a full pipe it
 *    sleeps and retries, tens of times slower.)
 *
 *   npx tsx bench/logger.ts [--lines 200000] [--rounds 3]
 *
 * Rounds interleave; each variant's best round counts. Tests never assert on timing.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '../daemon/log.ts';
import type { Logger } from '../protocol/log.ts';

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});
const LINES = Number(values.lines);
const ROUNDS = Number(values.rounds);
const VARIANTS = ['hand-rolled', 'pino'] as const;
type Variant = (typeof VARIANTS)[number];

/** The logger daemon/log.ts had before pino, verbatim in what it does per line. */
function handRolled(write: (line: string) => void): Logger {
  const emit =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

function requestLine(log: Logger, i: number): void {
  log.info('request', {
    request_id: 'req_0123456789abcdef0123456789abcdef',
    method: 'GET',
    route: '/v1/players/{ref}',
    key_id: 'k1a2b3c4d5e6',
    client_address: '203.0.113.7',
    status: i % 10 === 0 ? 404 : 200,
    error_code: i % 10 === 0 ? 'not_found' : null,
    ms: 1.3,
  });
}

function loggerFor(variant: Variant): { log: Logger; flush(): Promise<void> } {
  if (variant === 'hand-rolled') {
    return { log: handRolled((l) => process.stdout.write(l)), flush: async () => undefined };
  }
  const log = createLogger({ format: 'json' });
  return { log, flush: () => new Promise((resolve) => log.flush(() => resolve())) };
}

/** In the child: log LINES request lines to stdout, report lines/s on stderr once flushed. */
async function child(variant: Variant): Promise<void> {
  const { log, flush } = loggerFor(variant);
  const started = performance.now();
  for (let i = 0; i < LINES; i++) requestLine(log, i);
  await flush();
  process.stderr.write(`${LINES / ((performance.now() - started) / 1000)}\n`);
}

async function throughPipe(variant: Variant): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', script, '--child', variant, '--lines', `${LINES}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let report = '';
  proc.stdout.resume();
  proc.stderr.on('data', (chunk) => (report += chunk));
  await once(proc, 'exit');
  return Number(report.trim());
}

function formatOnly(log: Logger): number {
  const started = performance.now();
  for (let i = 0; i < LINES; i++) requestLine(log, i);
  return LINES / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const best: Record<string, number> = {};
  const keep = (name: string, rate: number) => (best[name] = Math.max(best[name] ?? 0, rate));
  const drop = (): void => undefined;
  for (let round = 0; round < ROUNDS; round++) {
    keep('format: hand-rolled', formatOnly(handRolled(drop)));
    keep('format: pino', formatOnly(createLogger({ write: drop })));
    for (const variant of VARIANTS) keep(`pipe: ${variant}`, await throughPipe(variant));
  }
  const rate = (name: string) => Math.round(best[name] ?? 0);
  const ratio = (name: string, baseline: string) => `(${(rate(name) / rate(baseline)).toFixed(2)}×)`;
  console.log(`request log lines, ${LINES} per round, best of ${ROUNDS} rounds (lines/s)`);
  for (const name of Object.keys(best)) {
    const baseline = name.startsWith('format') ? 'format: hand-rolled' : 'pipe: hand-rolled';
    console.log(
      `${name.padEnd(22)} ${rate(name).toLocaleString('en').padStart(10)}  ${ratio(name, baseline)}`,
    );
  }
}

if (values.child) await child(values.child as Variant);
else await main();
