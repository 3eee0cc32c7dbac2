/**
 * `modgate service install` and `uninstall` as plans: a list of steps computed from the options,
 * printed as is by `--dry-run` and carried out by `executePlan` through a small `Host` (the file
 * system and the commands run), so tests carry plans out on temp dirs with a fake host.
 */
import { access, constants, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LOGROTATE_FILE, renderLogrotate } from './logrotate.ts';
import {
  renderEnvFile,
  renderSingleUnit,
  renderTemplateUnit,
  SINGLE_ENV_FILE,
  SINGLE_UNIT,
  TEMPLATE_UNIT,
  UNIT_MARKER,
  type UnitOptions,
} from './units.ts';

export const SYSTEM_UNIT_DIR = '/etc/systemd/system';
export const DATA_ROOT = '/var/lib/modgate';

export interface InstallOptions extends UnitOptions {
  unitDir: string;
  /** Where the audit log's logrotate file goes; /etc/logrotate.d. */
  logrotateDir: string;
  /** Only write the unit files: no user, no folders, no daemon-reload (packaging, inspection). */
  unitsOnly: boolean;
  /** Whether systemd runs this host (/run/systemd/system exists). */
  systemdRunning: boolean;
}

export type Step =
  | { kind: 'user'; name: string; home: string }
  | { kind: 'mkdir'; path: string; mode: number; owner: string | null }
  | { kind: 'write'; path: string; content: string; mode: number; keep: boolean }
  | { kind: 'remove'; path: string }
  /** `tolerant`: a failure is reported and the plan goes on (stopping what may not be running). */
  | { kind: 'run'; argv: string[]; tolerant?: boolean };

export function installPlan(options: InstallOptions): Step[] {
  const steps: Step[] = [];
  if (!options.unitsOnly) {
    steps.push({ kind: 'user', name: options.user, home: DATA_ROOT });
    // The data dir exists before the first start, so `sudo -u modgate modgate init` can fill it.
    steps.push({ kind: 'mkdir', path: DATA_ROOT, mode: 0o700, owner: options.user });
    steps.push({ kind: 'mkdir', path: options.envDir, mode: 0o755, owner: null });
    // The operator's file: written once, never overwritten.
    steps.push({
      kind: 'write',
      path: join(options.envDir, SINGLE_ENV_FILE),
      content: renderEnvFile(),
      mode: 0o644,
      keep: true,
    });
    // The audit log's rotation (logrotate.ts); also written once, then the operator's.
    steps.push({ kind: 'mkdir', path: options.logrotateDir, mode: 0o755, owner: null });
    steps.push({
      kind: 'write',
      path: join(options.logrotateDir, LOGROTATE_FILE),
      content: renderLogrotate({ user: options.user, dataRoot: DATA_ROOT }),
      mode: 0o644,
      keep: true,
    });
  }
  steps.push({ kind: 'mkdir', path: options.unitDir, mode: 0o755, owner: null });
  steps.push(unitWrite(join(options.unitDir, SINGLE_UNIT), renderSingleUnit(options)));
  steps.push(unitWrite(join(options.unitDir, TEMPLATE_UNIT), renderTemplateUnit(options)));
  if (!options.unitsOnly && options.systemdRunning) steps.push({ kind: 'run', argv: SYSTEMCTL_RELOAD });
  return steps;
}

export interface UninstallOptions {
  unitDir: string;
  systemdRunning: boolean;
  /** Enabled instances of the template (`eu-1` for modgate@eu-1.service); see enabledInstances. */
  instances: readonly string[];
}

/** Stops and disables the units and removes the unit files; keeps the user, data and env files. */
export function uninstallPlan(options: UninstallOptions): Step[] {
  const steps: Step[] = [];
  if (options.systemdRunning) {
    const units = [SINGLE_UNIT, ...options.instances.map((name) => `modgate@${name}.service`)];
    steps.push({ kind: 'run', argv: ['systemctl', 'disable', '--now', ...units], tolerant: true });
    // Instances started but never enabled.
    steps.push({ kind: 'run', argv: ['systemctl', 'stop', 'modgate@*.service'], tolerant: true });
  }
  steps.push({ kind: 'remove', path: join(options.unitDir, SINGLE_UNIT) });
  steps.push({ kind: 'remove', path: join(options.unitDir, TEMPLATE_UNIT) });
  if (options.systemdRunning) steps.push({ kind: 'run', argv: SYSTEMCTL_RELOAD });
  return steps;
}

const SYSTEMCTL_RELOAD = ['systemctl', 'daemon-reload'];

function unitWrite(path: string, content: string): Step {
  return { kind: 'write', path, content, mode: 0o644, keep: false };
}

/** One line per step, for `--dry-run` and for the report after a real run. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'user':
      return `create system user ${step.name} (home ${step.home}, no login shell) unless it exists`;
    case 'mkdir':
      return `create folder ${step.path} (mode ${octal(step.mode)}${step.owner ? `, owner ${step.owner}` : ''})`;
    case 'write':
      return step.keep ? `write ${step.path} unless it exists` : `write ${step.path}`;
    case 'remove':
      return `remove ${step.path} if modgate wrote it`;
    case 'run':
      return `run ${step.argv.join(' ')}`;
  }
}

/** What carrying out a plan touches; `systemHost()` is the real one. */
export interface Host {
  userExists(name: string): Promise<boolean>;
  /** Runs a command; rejects with its stderr when it fails. */
  run(argv: readonly string[]): Promise<void>;
  exists(path: string): Promise<boolean>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string, mode: number): Promise<void>;
  mkdir(path: string, mode: number): Promise<void>;
  remove(path: string): Promise<void>;
}

/** Carries out `steps` in order and returns what was done, one line each. */
export async function executePlan(steps: readonly Step[], host: Host): Promise<string[]> {
  const done: string[] = [];
  for (const step of steps) done.push(await executeStep(step, host));
  return done;
}

async function executeStep(step: Step, host: Host): Promise<string> {
  switch (step.kind) {
    case 'user':
      if (await host.userExists(step.name)) return `user ${step.name} exists`;
      await host.run(systemUserCommand(step.name, step.home));
      return `created system user ${step.name}`;
    case 'mkdir':
      // install(1) sets mode and owner on an existing folder too, and takes user names.
      if (step.owner !== null) {
        await host.run([
          'install',
          '-d',
          '-m',
          octal(step.mode),
          '-o',
          step.owner,
          '-g',
          step.owner,
          step.path,
        ]);
      } else await host.mkdir(step.path, step.mode);
      return `folder ${step.path}`;
    case 'write':
      if (step.keep && (await host.exists(step.path))) return `kept ${step.path}`;
      await host.writeFile(step.path, step.content, step.mode);
      return `wrote ${step.path}`;
    case 'remove':
      if (!(await host.exists(step.path))) return `${step.path} was not there`;
      if (!(await host.readFile(step.path)).startsWith(UNIT_MARKER)) {
        return `left ${step.path}: not written by modgate service install`;
      }
      await host.remove(step.path);
      return `removed ${step.path}`;
    case 'run':
      try {
        await host.run(step.argv);
      } catch (error) {
        if (!step.tolerant) throw error;
        return `${(error as Error).message} (going on)`;
      }
      return `ran ${step.argv.join(' ')}`;
  }
}

/** The instances of modgate@.service enabled in `unitDir` (symlinks in its `*.wants` folders). */
export async function enabledInstances(unitDir: string): Promise<string[]> {
  const names = new Set<string>();
  const wants = await readdir(unitDir, { withFileTypes: true }).catch(() => []);
  for (const entry of wants) {
    if (!entry.isDirectory() || !entry.name.endsWith('.wants')) continue;
    for (const link of await readdir(join(unitDir, entry.name)).catch(() => [])) {
      const match = /^modgate@(.+)\.service$/.exec(link);
      if (match?.[1] !== undefined) names.add(match[1]);
    }
  }
  return [...names].sort();
}

export function systemUserCommand(name: string, home: string): string[] {
  return [
    'useradd',
    '--system',
    '--user-group',
    '--home-dir',
    home,
    '--no-create-home',
    '--shell',
    '/usr/sbin/nologin',
    '--comment',
    'modgate daemon',
    name,
  ];
}

function octal(mode: number): string {
  return `0${mode.toString(8)}`;
}

const execFileAsync = promisify(execFile);

export function systemHost(): Host {
  return {
    async userExists(name) {
      try {
        await execFileAsync('getent', ['passwd', name]);
        return true;
      } catch {
        return false;
      }
    },
    async run(argv) {
      const [program, ...args] = argv;
      if (program === undefined) throw new Error('empty command');
      try {
        await execFileAsync(program, args);
      } catch (error) {
        const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
        throw new Error(`${argv.join(' ')} failed: ${stderr || (error as Error).message}`, { cause: error });
      }
    },
    exists: (path) =>
      access(path, constants.F_OK).then(
        () => true,
        () => false,
      ),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (path, content, mode) => writeFile(path, content, { mode }),
    mkdir: async (path, mode) => {
      await mkdir(path, { recursive: true, mode });
    },
    remove: (path) => rm(path, { force: true }),
  };
}
