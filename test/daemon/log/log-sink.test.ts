/**
 * The daemon's default log output (daemon/log/log-sink.ts) in real processes: lines logged in one
 * turn leave together and in order, nothing is lost when the process exits in the same turn, a
 * reader that does not read never stops the event loop, and a closed reader does not take the
 * process down.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleModule } from '../../support/module-bundle.ts';

const LOG_MODULE = new URL('../../../daemon/log/log.ts', import.meta.url);
/** daemon/log/log.ts bundled once for the file's children (test/support/module-bundle.ts). */
let logBundle: string;

/** A child that logs through createLogger as `modgate serve` does (JSON to its stdout). */
async function script(dir: string, name: string, body: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `import { createLogger } from ${JSON.stringify(logBundle)};\n${body}\n`);
  return file;
}

function run(file: string, options: { readStdout?: boolean } = {}) {
  const child = spawn(process.execPath, [file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  if (options.readStdout !== false) child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return {
    child,
    /** What the child has written to stderr so far. */
    stderr: () => stderr,
    done: once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr })),
  };
}

/** Resolves once `stream` has carried `text`; rejects, with what it did carry, if it ends first. */
function textOn(stream: NodeJS.ReadableStream, text: string): Promise<void> {
  let seen = '';
  return new Promise((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
    });
    stream.on('end', () =>
      reject(new Error(`ended before ${JSON.stringify(text)}: ${JSON.stringify(seen)}`)),
    );
  });
}

const messages = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

describe('the default log output', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-log-sink-'));
    logBundle = await bundleModule(LOG_MODULE, dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes every line, in order, when the process exits in the turn that logged them', async () => {
    const file = await script(
      dir,
      'exit.mjs',
      `const log = createLogger({ format: 'json' });
       for (let i = 0; i < 500; i++) log.info('line ' + i, { i });
       log.error('last words');
       process.exit(3);`,
    );
    const { code, stdout } = await run(file).done;
    expect(code).toBe(3);
    const lines = messages(stdout);
    expect(lines).toHaveLength(501);
    expect(lines[0]).toBe('line 0');
    expect(lines[499]).toBe('line 499');
    expect(lines[500]).toBe('last words');
  });

  it('keeps the order of lines from two loggers sharing standard output', async () => {
    const file = await script(
      dir,
      'two.mjs',
      `const a = createLogger({ format: 'json' });
       const b = createLogger({ format: 'json' });
       a.info('one'); b.info('two'); a.info('three');
       setImmediate(() => { b.info('four'); a.info('five'); });`,
    );
    const { code, stdout } = await run(file).done;
    expect(code).toBe(0);
    expect(messages(stdout)).toEqual(['one', 'two', 'three', 'four', 'five']);
  });

  it('writes lines logged across many turns as they come, without waiting for more', async () => {
    const file = await script(
      dir,
      'turns.mjs',
      `const log = createLogger({ format: 'json' });
       log.info('first');
       // Stay alive until the parent has seen the first line: it must not wait for a later one.
       process.stdin.resume();
       setTimeout(() => process.exit(0), 20_000);`,
    );
    const child = spawn(process.execPath, [file], { stdio: ['pipe', 'pipe', 'pipe'] });
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    child.kill();
    expect(messages(chunk.toString())).toEqual(['first']);
  });

  it('keeps its event loop turning while the reader of its output does not read', async () => {
    const file = await script(
      dir,
      'stalled.mjs',
      `const log = createLogger({ format: 'json' });
       let ticks = 0;
       // Twenty turns of the loop while nobody reads: a blocked loop never gets there.
       setInterval(() => {
         if (++ticks < 20) return;
         process.stderr.write('ticks ' + ticks + '\\n');
         process.exit(0);
       }, 5);
       // 8 MiB of lines: far more than a pipe holds, so they wait in memory.
       for (let i = 0; i < 2048; i++) log.info('x'.repeat(4096));`,
    );
    const { child, done } = run(file, { readStdout: false });
    child.stdout.pause();
    const { code, stderr } = await done;
    expect(code).toBe(0);
    expect(stderr).toContain('ticks 20');
  });

  it('calls back from flush only once its reader has taken every line', async () => {
    const file = await script(
      dir,
      'flush.mjs',
      `const log = createLogger({ format: 'json' });
       for (let i = 0; i < 2048; i++) log.info('x'.repeat(4096));
       // A later turn: the end of the first has handed every line over, so nothing is pending.
       setImmediate(() => {
         log.flush(() => { process.stderr.write('flushed\\n'); process.exit(0); });
         // Two turns on, with the reader still not reading: a flush that called back early has.
         setImmediate(() => setImmediate(() => process.stderr.write('asked\\n')));
       });`,
    );
    const { child, stderr, done } = run(file, { readStdout: false });
    child.stdout.pause();
    // 8 MiB cannot pass a pipe nobody reads, so nothing may call back before this line.
    await textOn(child.stderr, 'asked\n');
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => (lines += chunk.toString().split('\n').length - 1));
    const ended = once(child.stdout, 'end');
    child.stdout.resume();
    const { code } = await done;
    await ended;
    expect(code).toBe(0);
    expect(stderr()).toMatch(/^asked\nflushed\n$/m);
    expect(lines).toBe(2048);
  });

  it('keeps running when the reader of its output goes away', async () => {
    const file = await script(
      dir,
      'epipe.mjs',
      `const log = createLogger({ format: 'json' });
       let turns = 0;
       const tick = () => {
         log.info('x'.repeat(512));
         if (++turns < 400) setTimeout(tick, 1);
         else { process.stderr.write('survived\\n'); process.exit(0); }
       };
       tick();`,
    );
    const { child, done } = run(file, { readStdout: false });
    child.stdout.destroy();
    const { code, stderr } = await done;
    expect(stderr).toContain('survived');
    expect(code).toBe(0);
  });
});
