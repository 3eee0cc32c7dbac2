/**
 * The long-running commands: `serve` (the daemon), `sim` (a simulated game mod) and `demo`
 * (both, on a throwaway data dir, with a printed key and curl lines). Each loads the daemon or
 * the simulator when it runs, so `serve` never loads the simulator's world and neither loads
 * the other (start-up, docs/performance.md).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig, ConfigError, EMPTY_CONFIG } from '../config/config.ts';
import { daemonOptions, DEFAULT_LISTEN, DEFAULT_MOD_LISTEN, reloadSettings } from '../config/settings.ts';
import type { Daemon } from '../daemon.ts';
import { parseHostPort, type HostPort } from '../host-port.ts';
import { createLogger, type LevelledLogger, type LogLevel } from '../log.ts';
import { readFromDataDir } from '../store/data-dir-access.ts';
import { modCredentialsFile } from '../store/mod-credentials.ts';
import { parseFaultSpec, type FaultRule } from '../../mod-sim/faults.ts';
import { OPS } from '../../protocol/ops/index.ts';
import { registerConfigCommand } from './config-command.ts';
import { CliError, UsageError } from './errors.ts';
import type { CliIo } from './io.ts';
import { dataDirOf, hostPort, withDataDirOption } from './options.ts';
import { untilSignal } from './signals.ts';
import { notifySystemd } from '../systemd-notify.ts';

export { DEFAULT_LISTEN, DEFAULT_MOD_LISTEN };

interface ServeFlags {
  dataDir?: string;
  config?: string;
  listen?: HostPort;
  modListen?: HostPort;
  tlsCert?: string;
  tlsKey?: string;
  logLevel?: LogLevel;
}

interface SimFlags {
  dataDir?: string;
  connect?: string;
  seed: number;
  players: number;
  modVersion?: string;
  fault: FaultRule[];
  catalogDelay: number;
  blockCommand: string[];
  activityInterval: number;
  logLevel: LogLevel;
}

export function registerRuntimeCommands(program: Command, io: CliIo): void {
  registerConfigCommand(program, io);
  withDataDirOption(program.command('serve').description('run the daemon: the /v1 API and the mod link'))
    .option('--config <file>', 'operator config file, TOML (default: $MODGATE_CONFIG)')
    .option(
      '--listen <host:port>',
      `API address; plain HTTP only on loopback (default ${DEFAULT_LISTEN})`,
      hostPort,
    )
    .option('--mod-listen <host:port>', `mod link address (default ${DEFAULT_MOD_LISTEN})`, hostPort)
    .option('--tls-cert <file>', 'PEM certificate chain; serve HTTPS')
    .option('--tls-key <file>', 'PEM private key for --tls-cert')
    .option('--log-level <level>', 'debug, info, warn or error (default: the config, else info)', logLevel)
    .action(async (flags: ServeFlags) => serve(flags, io));

  withDataDirOption(program.command('sim').description('run a simulated game mod that dials the daemon'))
    .option('--connect <url>', 'the daemon mod link (default: the url in mod-credentials.json)')
    .option('--seed <n>', 'world seed', integer(0, 2 ** 31 - 1), 1)
    .option('--players <n>', 'players in the world', integer(1, 100_000), 200)
    .option('--mod-version <version>', 'the game mod build to simulate, e.g. 2.0.40')
    .option(
      '--fault <spec>',
      'misbehave: OP=delay:MS|hang|error:CODE|drop|garbage[,after-apply][,times:N]',
      fault,
      [],
    )
    .option(
      '--catalog-delay <ms>',
      'time the game takes to build its command catalogue',
      integer(0, 3_600_000),
      1_000,
    )
    .option('--block-command <verb>', 'a console verb the game refuses (repeatable)', verbList, [])
    .option(
      '--activity-interval <ms>',
      "spacing of the game's own console commands; 0 = none",
      integer(0, 86_400_000),
      60_000,
    )
    .option('--log-level <level>', 'debug, info, warn or error', logLevel, 'info')
    .action(async (flags: SimFlags) => sim(flags, io));

  program
    .command('demo')
    .description('daemon and simulator on a throwaway data dir; prints a key and curl lines')
    .option('--listen <host:port>', 'API address', hostPort, parseHostPort(DEFAULT_LISTEN))
    .action(async (flags: { listen: HostPort }) => {
      const { runDemo } = await import('./demo.ts');
      await runDemo({ listen: flags.listen, io });
    });
}

async function serve(flags: ServeFlags, io: CliIo): Promise<void> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const configPath = flags.config ?? io.env['MODGATE_CONFIG'];
  const config = configPath ? await loadConfigOrFail(configPath) : EMPTY_CONFIG;
  const log = createLogger({
    level: flags.logLevel ?? config.log.level,
    write: (line) => io.stdout.write(line),
  });
  const { startDaemon } = await import('../daemon.ts');
  const daemon = await startDaemon({
    dataDir: dataDirOf(flags, io),
    log,
    ...daemonOptions(config, flags, io.env),
  });
  log.info('listening', {
    api: daemon.api,
    mod_link: daemon.modLink,
    tls: daemon.api !== undefined && Boolean(flags.tlsCert ?? config.api.tls_cert),
    config: configPath ?? null,
  });
  notifySystemd('READY=1', io.env, log);
  const onHangUp = () => void reload(daemon, configPath, flags, log);
  process.on('SIGHUP', onHangUp);
  const signal = await untilSignal(['SIGINT', 'SIGTERM']);
  process.off('SIGHUP', onHangUp);
  log.info('stopping: draining requests, then closing the mod link', { signal });
  notifySystemd('STOPPING=1', io.env, log);
  await daemon.close();
  log.info('stopped');
}

/** SIGHUP: keys, state, certificates and the reloadable settings; a broken config is refused whole. */
async function reload(
  daemon: Daemon,
  configPath: string | undefined,
  flags: ServeFlags,
  log: LevelledLogger,
) {
  try {
    const config = configPath ? await loadConfig(configPath) : EMPTY_CONFIG;
    if (!flags.logLevel) log.setLevel(config.log.level);
    await daemon.reload(reloadSettings(config));
    log.info('reloaded', { config: configPath ?? null });
  } catch (error) {
    log.error('reload refused; the running settings stay', { error: (error as Error).message });
  }
}

async function loadConfigOrFail(path: string) {
  try {
    return await loadConfig(path);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}

async function sim(flags: SimFlags, io: CliIo): Promise<void> {
  const log = createLogger({ level: flags.logLevel, write: (line) => io.stdout.write(line) });
  const credentials = await readFromDataDir(dataDirOf(flags, io), modCredentialsFile);
  const { startSimulator } = await import('../../mod-sim/simulator.ts');
  const simulator = startSimulator({
    url: flags.connect ?? credentials.url,
    identity: { publicKey: credentials.modPublicKey, secretKey: credentials.modSecretKey },
    daemonPublicKey: credentials.daemonPublicKey,
    seed: flags.seed,
    players: flags.players,
    ...(flags.modVersion !== undefined ? { modVersion: flags.modVersion } : {}),
    faults: flags.fault,
    wallClock: true,
    catalogDelayMs: flags.catalogDelay,
    blockedVerbs: flags.blockCommand,
    activityIntervalMs: flags.activityInterval,
    log,
  });
  simulator.bridge.on('connect', () =>
    log.info('connected to daemon', { url: flags.connect ?? credentials.url }),
  );
  simulator.bridge.on('disconnect', (code, reason) => log.warn('link closed; redialling', { code, reason }));
  log.info('simulating', {
    seed: flags.seed,
    players: flags.players,
    mod_version: simulator.world.modVersion,
  });
  await untilSignal(['SIGINT', 'SIGTERM']);
  await simulator.close();
}

function logLevel(value: string): LogLevel {
  if (['debug', 'info', 'warn', 'error'].includes(value)) return value as LogLevel;
  throw new InvalidArgumentError('expected debug, info, warn or error');
}

function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`expected an integer ${min} to ${max}`);
    return n;
  };
}

function fault(value: string, previous: FaultRule[]): FaultRule[] {
  try {
    return [...previous, parseFaultSpec(value, Object.keys(OPS))];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function verbList(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(value))
    throw new InvalidArgumentError('expected a console verb such as Kick');
  return [...previous, value];
}
