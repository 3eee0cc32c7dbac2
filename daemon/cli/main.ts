/**
 * The `modgate` entry point: the operator commands of program.ts plus the runtime commands
 * (serve, sim, demo). Run directly (`tsx daemon/cli/main.ts`), through bin/modgate.js, or as the
 * single executable, it runs the CLI on process.argv and sets the exit code; imported, it only
 * exports runCli.
 */
import { realpathSync } from 'node:fs';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './io.ts';
import { runCli as runProgram } from './program.ts';
import { registerRuntimeCommands } from './runtime-commands.ts';

export function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  return runProgram(argv, io, { register: registerRuntimeCommands });
}

/** True when this process was started to run the CLI (not when a test imports this module). */
function isEntryPoint(): boolean {
  if (isSea()) return true;
  const script = process.argv[1];
  if (script === undefined) return false;
  const entries = [import.meta.url, new URL('../../bin/modgate.js', import.meta.url).href].map((url) =>
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
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
