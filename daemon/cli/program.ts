/**
 * The `modgate` commander program and its in-process runner. main.ts adds the runtime commands
 * (serve, sim, demo) and calls runCli with process.argv; tests call runCli with their own io and
 * read the exit code, stdout and stderr.
 */
import { Command } from 'commander';
import { registerApiCommands } from './api-commands.ts';
import { registerDoctorCommand } from './doctor-command.ts';
import { errorOutcome } from './errors.ts';
import { registerInitCommand } from './init-command.ts';
import { processIo, type CliIo } from './io.ts';
import { registerKeysCommands } from './keys-commands.ts';
import { registerModCommands } from './mod-commands.ts';
import { registerPlanCommands } from './plan-commands.ts';
import { registerServiceCommands } from './service-command.ts';
import { versionText } from './version-text.ts';

export interface RunCliOptions {
  /** Registers more commands on the program (main.ts passes registerRuntimeCommands). */
  readonly register?: (program: Command, io: CliIo) => void;
}

export function buildProgram(io: CliIo, options: RunCliOptions = {}): Command {
  const program = new Command('modgate')
    .description('game-server gateway: a signed mod link on one side, the /v1 REST API on the other')
    .version(
      versionText(),
      '-V, --version',
      'print the version, the mod-link protocol and the Node.js runtime',
    );
  registerInitCommand(program, io);
  registerKeysCommands(program, io);
  registerApiCommands(program, io);
  registerPlanCommands(program, io);
  registerModCommands(program, io);
  registerServiceCommands(program, io);
  registerDoctorCommand(program, io);
  options.register?.(program, io);
  // Applied to every command at the end, so commands built elsewhere and attached with
  // addCommand() write to the same streams and never call process.exit() either.
  for (const command of allCommands(program)) {
    command
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      })
      .showSuggestionAfterError(true);
  }
  return program;
}

/**
 * Runs the CLI on `argv` (the user's arguments, without node and the script) and resolves to the
 * exit code. Never throws and never exits the process: errors become one line on stderr.
 */
export async function runCli(
  argv: readonly string[],
  io: Partial<CliIo> = {},
  options: RunCliOptions = {},
): Promise<number> {
  const fullIo = processIo(io);
  try {
    await buildProgram(fullIo, options).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    const outcome = errorOutcome(error);
    if (outcome.message !== null) fullIo.stderr.write(`error: ${outcome.message}\n`);
    if (fullIo.env.MODGATE_DEBUG && outcome.message !== null && error instanceof Error && error.stack)
      fullIo.stderr.write(`${error.stack}\n`);
    return outcome.exitCode;
  }
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap((child) => allCommands(child))];
}
