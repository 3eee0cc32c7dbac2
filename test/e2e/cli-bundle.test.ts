/**
 * The suite runs modgate from one bundle of the CLI built for the run (test/support/
 * cli-bundle-setup.ts), not through bin/modgate.js: these prove that harness `start` runs it, that
 * its stack traces name the .ts files, and that it reads what lies beside its source (docs/) as
 * the source does. test/e2e/cli-processes.test.ts keeps the bin/modgate.js path covered.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { currentProgram, runModgate, start } from '../../harness/processes.ts';

const program = inject('modgateProgram');

describe('the suite’s CLI bundle', () => {
  it('is what harness start runs when not told', async () => {
    expect(program.at(-1)).toMatch(/\/modgate-cli-[^/]+\/modgate\.mjs$/);
    expect(currentProgram()).toEqual(program);
    const child = start(['--version']);
    expect(await child.exited()).toBe(0);
    expect(child.spawnargs).toEqual([...program, '--version']);
    expect(child.stdoutText()).toMatch(/^modgate \d+\.\d+\.\d+/);
  });

  it('names the .ts source files in a stack trace', async () => {
    const [node, ...flags] = program as [string, ...string[]];
    const bundle = flags.pop() as string;
    // A call the CLI never gets (no argv) throws inside cli/program.ts.
    const script = `const { runCli } = await import(${JSON.stringify(bundle)});
      try { await runCli(null); } catch (error) { console.log(error.stack); }`;
    const { stdout } = await promisify(execFile)(node, [...flags, '--input-type=module', '-e', script]);
    expect(stdout).toMatch(/\(.*\/cli\/program\.ts:\d+:\d+\)/);
    expect(stdout).not.toContain('modgate.mjs');
  });

  it('prints docs/ from the checkout for modgate docs, as from source', async () => {
    const { stdout } = await runModgate(['docs', 'architecture']);
    const source = await readFile(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    expect(stdout.trim()).toBe(source.trim());
  });
});
