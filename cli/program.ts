/**
 * The `modgate` commander program and its in-process runner. main.ts adds the runtime commands
 * (serve, sim, demo) and calls runCli with process.argv; tests call runCli with their own io and
 * read the exit code, stdout and stderr.
 */
import { Command } from 'commander';
import { operatorCommandModulesFor, type RegisterCommands } from './command-modules.ts';
import { errorOutcome } from './errors.ts';
import { processIo, type CliIo } from './io.ts';
import { versionText } from './version-text.ts';

export interface RunCliOptions {
  /** Registers more commands on the program (main.ts passes registerRuntimeCommands). */
  readonly register?: RegisterCommands;
  /**
   * The top-level commands `register` adds: running one of them loads none of the operator
   * commands' modules (command-modules.ts).
   */
  readonly registers?: readonly string[];
  /** `--json` was given: commander's error text is kept back and printed as a JSON error. */
  readonly json?: boolean;
}

/**
 * The program with the operator commands in `commands` (command-modules.ts says which a command
 * line needs; `await operatorCommandModulesFor([])` gives them all) and those of `options.register`.
 */
export function buildProgram(
  io: CliIo,
  options: RunCliOptions = {},
  commands: readonly RegisterCommands[] = [],
): Command {
  const program = new Command('modgate')
    .description('game-server gateway: a signed mod link on one side, the /v1 REST API on the other')
    .version(
      versionText(),
      '-V, --version',
      'print the version, the mod-link protocol and the Node.js runtime',
    );
  for (const register of commands) register(program, io);
  options.register?.(program, io);
  // Applied to every command at the end, so commands built elsewhere and attached with
  // addCommand() write to the same streams and never call process.exit() either. Every command
  // takes --json (docs/operations.md, "Scripting with --json"): its result, and any error, as JSON.
  for (const command of allCommands(program)) {
    const leaf = command.commands.length === 0 && command !== program;
    if (leaf && !command.options.some((option) => option.long === '--json')) {
      command.option('--json', 'print the result as JSON, and errors as JSON on stderr');
    }
    command
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        outputError: (text, write) => (options.json ? undefined : write(text)),
      })
      .showSuggestionAfterError(true);
  }
  return program;
}

/**
 * Runs the CLI on `argv` (the user's arguments, without node and the script) and resolves to the
 * exit code. Never throws and never exits the process: errors become one line on stderr, or
 * under `--json` one `{"error":{"code","message"}}` object.
 */
export async function runCli(
  argv: readonly string[],
  io: Partial<CliIo> = {},
  options: RunCliOptions = {},
): Promise<number> {
  const fullIo = processIo(io);
  const json = wantsJson(argv);
  try {
    const commands = await operatorCommandModulesFor(argv, options.registers);
    await buildProgram(fullIo, { ...options, json }, commands).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    const outcome = await errorOutcome(error, { argv });
    if (outcome.exitCode === 0) return 0;
    if (json) {
      printJsonLine(fullIo.stderr, { error: { code: outcome.code, message: outcome.message } });
    } else if (!outcome.printed) {
      fullIo.stderr.write(`error: ${outcome.message}\n`);
    }
    if (fullIo.env.MODGATE_DEBUG && !outcome.printed && error instanceof Error && error.stack)
      fullIo.stderr.write(`${error.stack}\n`);
    return outcome.exitCode;
  }
}

/** `--json` among the options (before a `--` that ends them). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

function printJsonLine(output: CliIo['stderr'], value: unknown): void {
  output.write(`${JSON.stringify(value)}\n`);
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap((child) => allCommands(child))];
}
