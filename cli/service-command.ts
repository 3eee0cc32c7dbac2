/**
 * `modgate service install|uninstall`: the systemd units of cli/service/units.ts, the system
 * user and the folders they need, and the audit log's logrotate file (cli/service/logrotate.ts). `--dry-run` prints the plan and the units and changes nothing;
 * `--units-only` writes just the unit files (packaging, or a look at them in a scratch folder).
 */
import { existsSync, realpathSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isSea } from 'node:sea';
import { InvalidArgumentError, type Command } from 'commander';
import {
  DATA_ROOT,
  describeStep,
  enabledInstances,
  executePlan,
  installPlan,
  SYSTEM_UNIT_DIR,
  systemHost,
  uninstallPlan,
  type Step,
} from './service/install.ts';
import { LOGROTATE_DIR, LOGROTATE_FILE } from './service/logrotate.ts';
import { DEFAULT_UNIT_OPTIONS } from './service/units.ts';
import { CliError, UsageError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';

interface InstallFlags {
  user: string;
  unitDir: string;
  bin?: string;
  dryRun?: boolean;
  unitsOnly?: boolean;
  json?: boolean;
}

interface UninstallFlags {
  unitDir: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Folders a hardened unit cannot see (ProtectHome=, PrivateTmp=): a binary there never starts. */
const HIDDEN_FROM_UNIT = ['/home/', '/root/', '/run/user/', '/tmp/', '/var/tmp/'];

export function registerServiceCommands(program: Command, io: CliIo): void {
  const service = program.command('service').description('run the daemon under systemd');

  service
    .command('install')
    .description(
      'write modgate.service, modgate@.service and the audit log rotation, create the user and the data dir',
    )
    .option('--user <name>', 'the system user the daemon runs as', userName, DEFAULT_UNIT_OPTIONS.user)
    .option('--unit-dir <dir>', 'where the unit files go', SYSTEM_UNIT_DIR)
    .option('--bin <path>', 'the modgate binary ExecStart runs (default: this binary)')
    .option('--dry-run', 'print the steps and the units; change nothing')
    .option('--units-only', 'write only the unit files: no user, no folders, no daemon-reload')
    .action(async (flags: InstallFlags) => install(flags, io));

  service
    .command('uninstall')
    .description('stop and disable the units and remove their files; keeps the user and the data')
    .option('--unit-dir <dir>', 'where the unit files are', SYSTEM_UNIT_DIR)
    .option('--dry-run', 'print the steps; change nothing')
    .action(async (flags: UninstallFlags) => uninstall(flags, io));
}

async function install(flags: InstallFlags, io: CliIo): Promise<void> {
  const bin = binPath(flags.bin);
  const plan = installPlan({
    ...DEFAULT_UNIT_OPTIONS,
    bin,
    user: flags.user,
    unitDir: flags.unitDir,
    logrotateDir: LOGROTATE_DIR,
    unitsOnly: flags.unitsOnly === true,
    systemdRunning: systemdRunning(),
  });
  if (flags.json && flags.dryRun) return printJson(io, planJson(plan, null));
  if (flags.dryRun) {
    printPlan(io, 'install', plan);
    for (const step of plan) {
      if (step.kind === 'write') printLines(io, `# ----- ${step.path}`, step.content);
    }
    return;
  }
  if (!flags.unitsOnly) {
    requireRoot('service install');
    await access(bin, constants.X_OK).catch(() => {
      throw new CliError(
        `${bin} is not an executable file; install the binary there first, or pass --bin PATH`,
      );
    });
  }
  const done = await executePlan(plan, systemHost());
  if (flags.json) return printJson(io, planJson(plan, done));
  printLines(io, ...done);
  if (!flags.unitsOnly) printLines(io, '', ...nextSteps(bin, flags.user));
}

async function uninstall(flags: UninstallFlags, io: CliIo): Promise<void> {
  const plan = uninstallPlan({
    unitDir: flags.unitDir,
    systemdRunning: systemdRunning(),
    instances: await enabledInstances(flags.unitDir),
  });
  if (flags.dryRun)
    return flags.json ? printJson(io, planJson(plan, null)) : printPlan(io, 'uninstall', plan);
  if (plan.some((step) => step.kind === 'run')) requireRoot('service uninstall');
  const done = await executePlan(plan, systemHost());
  if (flags.json) return printJson(io, planJson(plan, done));
  printLines(
    io,
    ...done,
    '',
    `Kept: the user, ${DATA_ROOT} (identity, keys, state), /etc/modgate and the logrotate file. To remove them too:`,
    `  sudo userdel modgate && sudo rm -r ${DATA_ROOT} /etc/modgate ${join(LOGROTATE_DIR, LOGROTATE_FILE)}   # deletes every key and identity`,
  );
}

/** `--json`: the steps, and what each did (null on a dry run, which does nothing). */
function planJson(plan: readonly Step[], done: readonly string[] | null): Record<string, unknown> {
  return { dry_run: done === null, steps: plan.map(describeStep), done };
}

function printPlan(io: CliIo, command: string, plan: readonly Step[]): void {
  printLines(
    io,
    `# modgate service ${command} --dry-run: nothing was changed. It would:`,
    ...plan.map((step) => `#   ${describeStep(step)}`),
  );
}

function nextSteps(bin: string, user: string): string[] {
  const as = `sudo -u ${user} ${bin}`;
  return [
    'Next (see `modgate docs operations`):',
    `  ${as} init --data-dir ${DATA_ROOT} --name "My server"`,
    `  ${as} plan set --data-dir ${DATA_ROOT} --premium on`,
    `  ${as} api enable --data-dir ${DATA_ROOT}`,
    `  ${as} keys create --data-dir ${DATA_ROOT} --name my-bot --scopes server:read`,
    '  sudo systemctl enable --now modgate',
    `  ${as} doctor --data-dir ${DATA_ROOT}`,
    `One daemon per game server instead: put NAME's ports in /etc/modgate/NAME.env, init ${DATA_ROOT}/NAME,`,
    '  then sudo systemctl enable --now modgate@NAME',
  ];
}

/** --bin, else this very binary when it is the single executable, else /usr/local/bin/modgate. */
function binPath(flag: string | undefined): string {
  const bin = flag ?? (isSea() ? realpathSync(process.execPath) : DEFAULT_UNIT_OPTIONS.bin);
  if (!isAbsolute(bin)) throw new UsageError(`--bin must be an absolute path, not ${bin}`);
  if (/\s/.test(bin)) throw new UsageError(`--bin must not contain spaces: ${bin}`);
  const hidden = HIDDEN_FROM_UNIT.find((prefix) => bin.startsWith(prefix));
  if (hidden !== undefined) {
    throw new UsageError(
      `${bin} is under ${hidden}, which the hardened unit cannot see; ` +
        `copy the binary to ${DEFAULT_UNIT_OPTIONS.bin} (or pass --bin)`,
    );
  }
  return bin;
}

function userName(value: string): string {
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(value)) {
    throw new InvalidArgumentError('a system user name: lower-case letters, digits, _ and -');
  }
  if (value === 'root') throw new InvalidArgumentError('the daemon must not run as root');
  return value;
}

function systemdRunning(): boolean {
  return existsSync('/run/systemd/system');
}

function requireRoot(command: string): void {
  if (process.geteuid?.() !== 0) throw new CliError(`${command} needs root: run it with sudo`);
}
