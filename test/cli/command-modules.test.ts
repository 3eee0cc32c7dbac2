import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { OPERATOR_COMMAND_MODULES, operatorCommandModulesFor } from '../../cli/command-modules.ts';
import { processIo } from '../../cli/io.ts';
import { registerRuntimeCommands, RUNTIME_COMMANDS } from '../../cli/runtime-commands.ts';
import { run } from '../../harness/cli.ts';

const registered = (register: (program: Command) => void): string[] => {
  const program = new Command('modgate');
  register(program);
  return program.commands.map((command) => command.name());
};

describe('the operator command modules', () => {
  it('each register exactly the top-level command they are listed under', async () => {
    for (const module of OPERATOR_COMMAND_MODULES) {
      const register = await module.load();
      expect(registered((program) => register(program, processIo()))).toEqual([module.name]);
    }
  });

  it('list the runtime commands as registerRuntimeCommands registers them', () => {
    expect(registered((program) => registerRuntimeCommands(program, processIo()))).toEqual([
      ...RUNTIME_COMMANDS,
    ]);
  });

  it('load none for a runtime command, one for an operator command and all otherwise', async () => {
    expect(await operatorCommandModulesFor(['serve', '--data-dir', 'x'], RUNTIME_COMMANDS)).toEqual([]);
    const keys = await operatorCommandModulesFor(['keys', 'list'], RUNTIME_COMMANDS);
    expect(keys).toHaveLength(1);
    expect(registered((program) => keys[0]?.(program, processIo()))).toEqual(['keys']);
    for (const argv of [[], ['help'], ['--help'], ['--json', 'keys'], ['kyes']]) {
      expect(await operatorCommandModulesFor(argv, RUNTIME_COMMANDS), argv.join(' ')).toHaveLength(
        OPERATOR_COMMAND_MODULES.length,
      );
    }
  });

  it('still suggest an operator command for a misspelt one', async () => {
    const result = await run(['doctr']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('doctor');
  });

  it('answer a subcommand help with only that command loaded', async () => {
    const result = await run(['keys', '--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Usage: modgate keys');
    expect(result.stdout).toContain('create');
  });
});
