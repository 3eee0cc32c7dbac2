/**
 * The long-running commands: `serve` (the daemon), `sim` (a simulated game mod) and `demo`
 * (both, on a throwaway data dir, with a printed key and curl lines). Each loads the daemon or
 * the simulator when it runs, so `serve` never loads the simulator's world and neither loads
 * the other (start-up, docs/performance.md).
 */
import { stat } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig, EMPTY_CONFIG, type Config } from '../daemon/config/config.ts';
import {
  daemonOptions,
  DEFAULT_LISTEN,
  DEFAULT_MOD_LISTEN,
  reloadSettings,
  settingsNeedingRestart,
} from '../daemon/config/settings.ts';
import type { Daemon } from '../daemon/daemon.ts';
import type { ReloadOutcome } from '../daemon/admin/services.ts';
import { formatHostPort, isLoopbackHost, parseHostPort, type HostPort } from '../daemon/host-port.ts';
import {
  createLogger,
  LOG_FORMATS,
  LOG_LEVELS,
  resolveLogFormat,
  type LevelledLogger,
  type LogFormat,
  type LogLevel,
} from '../daemon/log/log.ts';
import { metricsExposureProblem } from '../daemon/metrics/listener.ts';
import { adminExposureProblem } from '../daemon/admin/admin-listen.ts';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { parseFaultSpec, type FaultRule } from '../mod-sim/faults.ts';
import { OPS } from '../protocol/ops/index.ts';
import { registerConfigCommand } from './config-command.ts';
import { UsageError } from './errors.ts';
import type { CliIo } from './io.ts';
import {
  collectAllowIp,
  dataDirOf,
  hostPort,
  openDataDirOf,
  integer,
  withDataDirOption,
  type ServeSettingsFlags,
} from './options.ts';
import { untilSignal } from './signals.ts';
import { notifySystemd, startWatchdog } from './systemd-notify.ts';

export { DEFAULT_LISTEN, DEFAULT_MOD_LISTEN };

interface ServeFlags extends ServeSettingsFlags {
  metricsListen?: HostPort;
  metricsAllow: string[];
  adminListen?: HostPort;
  logLevel?: LogLevel;
  logFormat?: LogFormat;
  json?: boolean;
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
  eventsRate: number;
  eventBuffer: number;
  logLevel: LogLevel;
  logFormat?: LogFormat;
  json?: boolean;
}

/**
 * The top-level commands registerRuntimeCommands adds (program.ts loads no others for them): the
 * CLI's second command registry, beside OPERATOR_COMMAND_MODULES (command-modules.ts says why two).
 */
export const RUNTIME_COMMANDS = ['config', 'serve', 'sim', 'demo'] as const;

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
    .option(
      '--metrics-listen <host:port>',
      'serve Prometheus metrics at /metrics on this address (default: off)',
      hostPort,
    )
    .option(
      '--metrics-allow <cidr>',
      'scrapers allowed on a non-loopback --metrics-listen (repeatable)',
      collectAllowIp,
      [],
    )
    .option(
      '--admin-listen <host:port>',
      'the admin API on TCP with admin tokens; plain HTTP only on loopback (default: admin.sock only)',
      hostPort,
    )
    .option('--log-level <level>', 'debug, info, warn or error (default: the config, else info)', logLevel)
    .option('--log-format <format>', 'json or pretty (default: pretty at a terminal, else json)', logFormat)
    .option('--json', 'log JSON lines, and print a failure to start as a JSON error on stderr')
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
    .option(
      '--events-rate <n>',
      'game happenings a minute (joins, leaves, bans, balance changes); 0 = only what the API causes',
      integer(0, 60_000),
      0,
    )
    .option(
      '--event-buffer <n>',
      'most game events kept while the daemon has not acknowledged them',
      integer(1, 1_000_000),
      10_000,
    )
    .option('--log-level <level>', 'debug, info, warn or error', logLevel, 'info')
    .option('--log-format <format>', 'json or pretty (default: pretty at a terminal, else json)', logFormat)
    .option('--json', 'log JSON lines, and print a failure to start as a JSON error on stderr')
    .action(async (flags: SimFlags) => sim(flags, io));

  program
    .command('demo')
    .description('daemon and simulator on a throwaway data dir; prints a key and curl lines')
    .option(
      '--listen <host:port>',
      'API address (loopback: the demo serves plain HTTP)',
      hostPort,
      parseHostPort(DEFAULT_LISTEN),
    )
    .option('--json', 'print the URLs, the key and the data dir as one JSON object')
    .action(async (flags: { listen: HostPort; json?: boolean }) => {
      if (!isLoopbackHost(flags.listen.host)) {
        throw new UsageError(
          `the demo serves plain HTTP, so --listen must be a loopback address such as 127.0.0.1:8787, not ${formatHostPort(flags.listen)}`,
          'plain_http_refused',
        );
      }
      const { runDemo } = await import('./demo.ts');
      await runDemo({ listen: flags.listen, io, json: flags.json === true });
    });
}

async function serve(flags: ServeFlags, io: CliIo): Promise<void> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const configPath = flags.config ?? io.env['MODGATE_CONFIG'];
  const config = configPath ? await loadConfig(configPath) : EMPTY_CONFIG;
  const options = daemonOptions(config, { ...flags, metricsAllow: flags.metricsAllow }, io.env);
  checkExposure(options);
  if (options.tls) await checkTlsFilesExist(options.tls);
  const dataDir = dataDirOf(flags, io);
  const format = flags.json
    ? 'json'
    : resolveLogFormat(flags.logFormat, config.log.format, io.env, isTty(io));
  const log = createLogger({ level: flags.logLevel ?? config.log.level, format, ...logSink(io) });
  const { startDaemon } = await import('../daemon/daemon.ts');
  const reloadFromFiles = (running: Daemon) =>
    reload(running, { path: configPath, started: config }, flags, log);
  const daemon = await startDaemon({ dataDir, log, ...options, reload: reloadFromFiles });
  log.info('listening', {
    api: formatHostPort(daemon.api),
    mod_link: formatHostPort(daemon.modLink),
    metrics: daemon.metricsAddress ? formatHostPort(daemon.metricsAddress) : null,
    admin_socket: daemon.admin.socketPath,
    admin: daemon.admin.address ? formatHostPort(daemon.admin.address) : null,
    tls: options.tls !== undefined,
    config: configPath ?? null,
  });
  notifySystemd('READY=1', io.env, log);
  const stopWatchdog = startWatchdog(io.env, log);
  const onHangUp = () => void reloadFromFiles(daemon).catch(() => undefined); // logged there
  process.on('SIGHUP', onHangUp);
  const signal = await untilSignal(['SIGINT', 'SIGTERM']);
  process.off('SIGHUP', onHangUp);
  stopWatchdog();
  log.info('stopping', { signal });
  notifySystemd('STOPPING=1', io.env, log);
  await daemon.close();
  log.info('stopped');
}

/**
 * Exit 2 before anything starts: plain HTTP on a public address (the CLI contract), or metrics
 * open to everyone (docs/metrics.md). Each message names the setting and the fix.
 */
function checkExposure(options: ReturnType<typeof daemonOptions>): void {
  if (!options.tls && !isLoopbackHost(options.listen.host)) {
    throw new UsageError(
      `refusing to serve plain HTTP on ${formatHostPort(options.listen)} (--listen, [api] listen, ` +
        'MODGATE_LISTEN): serve HTTPS with --tls-cert FILE --tls-key FILE ([api] tls_cert and tls_key), ' +
        'or listen on 127.0.0.1 behind a TLS-terminating reverse proxy',
      'plain_http_refused',
    );
  }
  const problem = options.metrics ? metricsExposureProblem(options.metrics) : null;
  if (problem) throw new UsageError(problem, 'metrics_exposed');
  const adminProblem = options.admin ? adminExposureProblem(options.admin) : null;
  if (adminProblem) throw new UsageError(adminProblem, 'plain_http_refused');
}

/**
 * Exit 2 naming the setting when a configured certificate or key is not there (a typo, or a
 * container started without the mount that holds them: docs/docker.md). An unreadable one is
 * left to the permission message, which names its owner.
 */
async function checkTlsFilesExist(tls: { certFile: string; keyFile: string }): Promise<void> {
  const files = [
    { file: tls.certFile, what: 'certificate', setting: '--tls-cert, [api] tls_cert' },
    { file: tls.keyFile, what: 'private key', setting: '--tls-key, [api] tls_key' },
  ];
  for (const { file, what, setting } of files) {
    const missing = await stat(file).then(
      () => false,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT' || error.code === 'ENOTDIR',
    );
    if (missing) {
      throw new UsageError(
        `the TLS ${what} ${file} does not exist (${setting}); in a container, mount the folder that holds it (modgate docs docker)`,
        'config_invalid',
      );
    }
  }
}

function isTty(io: CliIo): boolean {
  return io.stdout === process.stdout && process.stdout.isTTY === true;
}

/** The real stdout goes straight to pino's file-descriptor writer; a test's stream gets lines. */
function logSink(io: CliIo): { write?: (line: string) => void } {
  return io.stdout === process.stdout ? {} : { write: (line) => void io.stdout.write(line) };
}

/**
 * SIGHUP (`systemctl reload`) and POST /admin/v1/reload (`modgate reload`): keys, state,
 * certificates and the reloadable settings; a broken config or data file is refused whole,
 * logged, and rejected with (for the admin API's answer), and the daemon runs on.
 */
async function reload(
  daemon: Daemon,
  configFile: { path: string | undefined; started: Config },
  flags: ServeFlags,
  log: LevelledLogger,
): Promise<ReloadOutcome> {
  const configPath = configFile.path;
  try {
    let config = EMPTY_CONFIG;
    // Read inside the reload, after it has reopened the audit log and the certificate: a broken
    // config file, like a broken data file, rejects then and changes nothing else.
    await daemon.reload(async () => {
      config = configPath ? await loadConfig(configPath) : EMPTY_CONFIG;
      return reloadSettings(config);
    });
    if (!flags.logLevel) log.setLevel(config.log.level);
    log.info('reloaded', { config: configPath ?? null });
    const restartNeeded = settingsNeedingRestart(configFile.started, config);
    if (restartNeeded.length > 0) {
      log.warn('changed settings take effect at the next restart', { settings: restartNeeded });
    }
    return { restartNeeded };
  } catch (error) {
    log.error('reload refused; the running settings stay', { error: (error as Error).message });
    throw error;
  }
}

async function sim(flags: SimFlags, io: CliIo): Promise<void> {
  const format = flags.json ? 'json' : resolveLogFormat(flags.logFormat, undefined, io.env, isTty(io));
  const log = createLogger({ level: flags.logLevel, format, ...logSink(io) });
  const dataDir = await openDataDirOf(flags, io);
  const credentials = await dataDir.read(modCredentialsFile);
  const { startSimulator } = await import('../mod-sim/simulator.ts');
  const simulator = startSimulator({
    url: flags.connect ?? credentials.url,
    identity: credentials.identity,
    daemonPublicKey: credentials.daemonPublicKey,
    seed: flags.seed,
    players: flags.players,
    ...(flags.modVersion !== undefined ? { modVersion: flags.modVersion } : {}),
    faults: flags.fault,
    wallClock: true,
    catalogDelayMs: flags.catalogDelay,
    blockedVerbs: flags.blockCommand,
    activityIntervalMs: flags.activityInterval,
    eventsRate: flags.eventsRate,
    eventBuffer: flags.eventBuffer,
    log,
  });
  // The bridge logs its own connects and disconnects (and redials); logging them here would twin them.
  log.info('simulating', {
    url: flags.connect ?? credentials.url,
    seed: flags.seed,
    players: flags.players,
    mod_version: simulator.world.modVersion,
  });
  await untilSignal(['SIGINT', 'SIGTERM']);
  await simulator.close();
}

function logLevel(value: string): LogLevel {
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new InvalidArgumentError('expected debug, info, warn or error');
}

function logFormat(value: string): LogFormat {
  if ((LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormat;
  throw new InvalidArgumentError('expected json or pretty');
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
