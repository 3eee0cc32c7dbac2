/**
 * The request log line, side by side: the hand-rolled logger modgate had (JSON.stringify of the
 * whole object, then process.stdout.write), and the daemon's logger (createLogger, the same line
 * byte for byte) with two writers: pino's own asynchronous destination (sonic-boom, each write
 * through libuv's thread pool: what daemon/log/log.ts used until the log-sink change) and the one
 * daemon/log/log.ts uses now (lines batched per event-loop turn, daemon/log/log-sink.ts). Three measurements:
 *
 * 1. format only: each logger hands its finished line to a function that drops it, so what is
 *    measured is building the line;
 * 2. burst to a pipe, as under systemd: each logger runs in a child process whose stdout is a
 *    pipe this process drains (journald reads the daemon's stdout the same way) and logs all its
 *    lines in one loop: lines/s;
 * 3. server-like, to a pipe: the child logs `--per-turn` lines per turn of the event loop, as a
 *    daemon answering that many requests per turn does, and reports the CPU time (user + system,
 *    all its threads) per line, less the same loop's CPU without logging. This is the figure a
 *    request pays; (2) hides the cost of handing each write to another thread, because a burst
 *    makes every write carry thousands of lines.
 *
 *   npx tsx bench/logger.ts [--lines 200000] [--rounds 3] [--per-turn 1,8]
 *
 * Rounds interleave; each variant's best round counts. Tests never assert on timing.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createLogger } from '../daemon/log/log.ts';
import type { Logger } from '../protocol/log.ts';

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
    'per-turn': { type: 'string', default: '1,8' },
    child: { type: 'string' },
    mode: { type: 'string', default: 'burst' },
  },
});
const LINES = Number(values.lines);
const ROUNDS = Number(values.rounds);
const VARIANTS = ['hand-rolled', 'pino async', 'daemon'] as const;
type Variant = (typeof VARIANTS)[number] | 'none';

/** The logger daemon/log/log.ts had before pino, verbatim in what it does per line. */
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
    // Flushed once stdout has written everything queued before it, as the others wait for.
    const flush = () => new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    return { log: handRolled((l) => process.stdout.write(l)), flush };
  }
  if (variant === 'none') return { log: handRolled(() => undefined), flush: async () => undefined };
  if (variant === 'pino async') {
    // The daemon's logger, lines and all, with the writer it had before log-sink.ts.
    const destination = pino.destination({ dest: 1, sync: false, minLength: 0 });
    const log = createLogger({ format: 'json', write: (line) => destination.write(line) });
    return { log, flush: () => new Promise((resolve) => destination.flush(() => resolve())) };
  }
  const log = createLogger({ format: 'json' });
  return { log, flush: () => new Promise((resolve) => log.flush(() => resolve())) };
}

/**
 * In the child: log LINES request lines to stdout, all at once (burst: lines/s) or PER_TURN per
 * event-loop turn (turns: CPU µs per line), and report on stderr once flushed.
 */
async function child(variant: Variant, mode: string, perTurn: number): Promise<void> {
  const { log, flush } = loggerFor(variant);
  const started = performance.now();
  const cpu = process.cpuUsage();
  if (mode === 'burst') {
    for (let i = 0; i < LINES; i++) requestLine(log, i);
  } else {
    for (let i = 0; i < LINES;) {
      for (let k = 0; k < perTurn; k++) requestLine(log, i++);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  await flush();
  const used = process.cpuUsage(cpu);
  const report =
    mode === 'burst' ? LINES / ((performance.now() - started) / 1000) : (used.user + used.system) / LINES;
  process.stderr.write(`${report}\n`);
}

async function throughPipe(variant: Variant, mode = 'burst', perTurn = 1): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      script,
      ...['--child', variant, '--lines', `${LINES}`, '--mode', mode, '--per-turn', `${perTurn}`],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
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
  const least: Record<string, number> = {};
  const keep = (name: string, rate: number) => (best[name] = Math.max(best[name] ?? 0, rate));
  const keepLeast = (name: string, cpu: number) => (least[name] = Math.min(least[name] ?? Infinity, cpu));
  const drop = (): void => undefined;
  const turns = values['per-turn'].split(',').map(Number);
  for (let round = 0; round < ROUNDS; round++) {
    keep('format: hand-rolled', formatOnly(handRolled(drop)));
    keep('format: pino', formatOnly(createLogger({ write: drop })));
    for (const variant of VARIANTS) keep(`burst: ${variant}`, await throughPipe(variant));
    for (const perTurn of turns) {
      for (const variant of [...VARIANTS, 'none'] as const) {
        keepLeast(`${perTurn}/turn: ${variant}`, await throughPipe(variant, 'turns', perTurn));
      }
    }
  }
  const rate = (name: string) => Math.round(best[name] ?? 0);
  const ratio = (name: string, baseline: string) => `(${(rate(name) / rate(baseline)).toFixed(2)}×)`;
  console.log(`request log lines, ${LINES} per round, best of ${ROUNDS} rounds (lines/s)`);
  for (const name of Object.keys(best)) {
    const baseline = name.startsWith('format') ? 'format: hand-rolled' : 'burst: hand-rolled';
    console.log(
      `${name.padEnd(24)} ${rate(name).toLocaleString('en').padStart(10)}  ${ratio(name, baseline)}`,
    );
  }
  console.log('\nserver-like, to a pipe: CPU µs per line, less the same loop without logging (least round)');
  for (const perTurn of turns) {
    const none = least[`${perTurn}/turn: none`] ?? 0;
    for (const variant of VARIANTS) {
      const name = `${perTurn}/turn: ${variant}`;
      console.log(`${name.padEnd(24)} ${((least[name] ?? 0) - none).toFixed(1).padStart(10)}`);
    }
  }
}

if (values.child) await child(values.child as Variant, values.mode, Number(values['per-turn']));
else await main();
