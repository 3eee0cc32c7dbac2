/**
 * The `modgate` entry point: the operator commands of program.ts plus the runtime commands
 * (serve, sim, demo). Run directly (`tsx cli/main.ts`), through bin/modgate.js, or as the
 * single executable, it runs the CLI on process.argv and sets the exit code; imported, it only
 * exports runCli.
 *
 * Start-up is part of the product (docs/performance.md): this module loads nothing but the
 * version text, so `modgate --version` answers before the program, the route table and the op
 * catalogue are even loaded; the commands load what they run when they run.
 */
import { realpathSync } from 'node:fs';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './io.ts';
import { isVersionQuery, versionText } from './version-text.ts';

export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const [{ runCli: runProgram }, { registerRuntimeCommands, RUNTIME_COMMANDS }] = await Promise.all([
    import('./program.ts'),
    import('./runtime-commands.ts'),
  ]);
  return runProgram(argv, io, { register: registerRuntimeCommands, registers: RUNTIME_COMMANDS });
}

/** True when this process was started to run the CLI (not when a test imports this module). */
function isEntryPoint(): boolean {
  if (isSea()) return true;
  const script = process.argv[1];
  if (script === undefined) return false;
  const entries = [import.meta.url, new URL('../bin/modgate.js', import.meta.url).href].map((url) =>
    fileURLToPath(url),
  );
  try {
    return entries.includes(realpathSync(script));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // exitCode, not exit(): a command such as serve keeps the process alive after its action resolves.
  // No top-level await: the single executable runs this module as CommonJS (scripts/build.ts).
  const argv = process.argv.slice(2);
  if (isVersionQuery(argv)) process.stdout.write(`${versionText()}\n`);
  else
    void runCli(argv).then((code) => {
      process.exitCode = code;
    });
}
