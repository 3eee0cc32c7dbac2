/**
 * The operator commands, by the top-level name each registers, and the module that defines it.
 * A command's module is loaded only when the command runs: `modgate serve` never loads the
 * doctor, the docs or the service installer, nor what they import (start-up, docs/performance.md).
 * Anything that shows more than one command (the program's help, `modgate help`, an unknown
 * command and its suggestion) loads them all, in this order, which is the order help lists them in.
 *
 * One of the CLI's two command registries: this one holds the operator commands, which runCli
 * (program.ts) always knows; the runtime commands (serve, sim, demo, config) are the other,
 * RUNTIME_COMMANDS in runtime-commands.ts, which only main.ts adds, so the in-process runner the
 * tests use never loads the daemon's start-up code. They stay two because merging them would
 * give every runCli caller serve and sim and move them in help's order.
 */
import type { Command } from 'commander';
import type { CliIo } from './io.ts';

export type RegisterCommands = (program: Command, io: CliIo) => void;

interface CommandModule {
  /** The top-level command the module registers (with its subcommands). */
  readonly name: string;
  readonly load: () => Promise<RegisterCommands>;
}

export const OPERATOR_COMMAND_MODULES: readonly CommandModule[] = [
  { name: 'init', load: async () => (await import('./init-command.ts')).registerInitCommand },
  { name: 'keys', load: async () => (await import('./keys-commands.ts')).registerKeysCommands },
  { name: 'api', load: async () => (await import('./api-commands.ts')).registerApiCommands },
  { name: 'plan', load: async () => (await import('./plan-commands.ts')).registerPlanCommands },
  { name: 'mod', load: async () => (await import('./mod-commands.ts')).registerModCommands },
  { name: 'service', load: async () => (await import('./service-command.ts')).registerServiceCommands },
  { name: 'webhooks', load: async () => (await import('./webhooks-commands.ts')).registerWebhooksCommands },
  { name: 'admin', load: async () => (await import('./admin-commands.ts')).registerAdminCommands },
  { name: 'group', load: async () => (await import('./group-command.ts')).registerGroupCommands },
  { name: 'reload', load: async () => (await import('./reload-command.ts')).registerReloadCommand },
  { name: 'doctor', load: async () => (await import('./doctor-command.ts')).registerDoctorCommand },
  {
    name: 'healthcheck',
    load: async () => (await import('./healthcheck-command.ts')).registerHealthcheckCommand,
  },
  { name: 'docs', load: async () => (await import('./docs-command.ts')).registerDocsCommand },
  {
    name: 'self-update',
    load: async () => (await import('./self-update-command.ts')).registerSelfUpdateCommand,
  },
];

/**
 * The registrars `argv` needs: none when its first word is one of `others` (commands registered
 * elsewhere, such as serve), that command's alone when it is an operator command, and every one
 * otherwise (no command, an option first, `help`, a misspelt name).
 */
export function operatorCommandModulesFor(
  argv: readonly string[],
  others: readonly string[] = [],
): Promise<RegisterCommands[]> {
  const first = argv[0];
  if (first !== undefined && others.includes(first)) return Promise.resolve([]);
  const named = OPERATOR_COMMAND_MODULES.filter((module) => module.name === first);
  return Promise.all((named.length > 0 ? named : OPERATOR_COMMAND_MODULES).map((module) => module.load()));
}
