/**
 * `npm run test:busy` (or `tsx scripts/cpu-hog.ts [--loops N] -- <command…>`): runs a command
 * beside N busy loops (2 unless told, one per core of the 2-core machine the suite must pass on),
 * so that a timing assumption in a test shows up as a failure on a developer's machine instead of
 * on a loaded CI run. Prints the command's wall time and exits with its code; the loops end with
 * it. Without a command, the loops run until Ctrl-C, for a suite started in another terminal.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/** Each loop is a thread of its own: it takes a core as a process would, and dies with this one. */
const BUSY_LOOP = 'for (;;) {}';

function parse(argv: readonly string[]): { loops: number; command: string[] } {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  const flag = own.indexOf('--loops');
  const loops = flag === -1 ? 2 : Number(own[flag + 1]);
  if (!Number.isInteger(loops) || loops < 1) throw new Error('--loops takes a whole number of at least 1');
  return { loops, command };
}

/** Runs `command` to its end: its exit code, with its wall time on stderr. */
async function timed(command: readonly string[]): Promise<number> {
  const [program, ...args] = command as [string, ...string[]];
  const started = performance.now();
  const child = spawn(program, args, { stdio: 'inherit' });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`cpu-hog: ${command.join(' ')} exited ${code ?? signal} after ${seconds} s\n`);
  return code ?? 1;
}

async function main(): Promise<number> {
  const { loops, command } = parse(process.argv.slice(2));
  const workers = Array.from({ length: loops }, () => new Worker(BUSY_LOOP, { eval: true }));
  process.stderr.write(`cpu-hog: ${loops} busy loops running\n`);
  try {
    if (command.length > 0) return await timed(command);
    await once(process, 'SIGINT');
    return 130;
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

process.exitCode = await main();
