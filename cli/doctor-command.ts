/**
 * `modgate doctor`: checks what `serve` needs, the way serve would see it, and prints each check
 * as ok, warn or fail with its fix. Exit code 0 when nothing failed (warnings included), 1 when
 * something did. Addresses and TLS files come as serve takes them: flag, then MODGATE_LISTEN /
 * MODGATE_MOD_LISTEN, then the config file (--config or MODGATE_CONFIG), then the defaults.
 */
import type { Command } from 'commander';
import { ConfigError, EMPTY_CONFIG, loadConfig, type Config } from '../daemon/config/config.ts';
import { daemonOptions, DEFAULT_LISTEN, DEFAULT_MOD_LISTEN } from '../daemon/config/settings.ts';
import type { HostPort } from '../daemon/host-port.ts';
import { fail, formatResults, hasFailure, ok, type CheckResult } from './service/doctor/check.ts';
import { checkDaemon } from './service/doctor/daemon-checks.ts';
import { checkDataDir } from './service/doctor/data-dir-checks.ts';
import { checkEventLog } from './service/doctor/event-log-checks.ts';
import { checkListeners } from './service/doctor/listen-checks.ts';
import { checkTls } from './service/doctor/tls-checks.ts';
import { checkWebhooks } from './service/doctor/webhook-checks.ts';
import { CliError, UsageError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { dataDirOf, hostPort, withDataDirOption, type ServeSettingsFlags } from './options.ts';

interface DoctorFlags extends ServeSettingsFlags {
  json?: boolean;
}

interface Resolved {
  listen: HostPort;
  modListen: HostPort;
  tls?: { certFile: string; keyFile: string };
}

export function registerDoctorCommand(program: Command, io: CliIo): void {
  withDataDirOption(
    program.command('doctor').description('check the data dir, certificates, addresses and the mod link'),
  )
    .option('--config <file>', 'the config file serve uses (default: $MODGATE_CONFIG)')
    .option(
      '--listen <host:port>',
      `the API address (default: $MODGATE_LISTEN, the config, ${DEFAULT_LISTEN})`,
      hostPort,
    )
    .option('--mod-listen <host:port>', `the mod link address (default ${DEFAULT_MOD_LISTEN})`, hostPort)
    .option('--tls-cert <file>', 'the PEM certificate chain serve uses')
    .option('--tls-key <file>', 'the PEM private key for --tls-cert')
    .option('--json', 'print the checks as JSON')
    .action(async (flags: DoctorFlags) => doctor(flags, io));
}

async function doctor(flags: DoctorFlags, io: CliIo): Promise<void> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const dataDir = dataDirOf(flags, io);
  const results: CheckResult[] = [];
  const config = await configOf(flags, io, results);
  const resolved = resolve(config, flags, io, results);
  const now = io.now();
  const dataDirResults = await checkDataDir(dataDir, {
    now,
    uid: process.getuid?.() ?? 0,
    modListen: resolved.modListen,
  });
  results.push(
    ...dataDirResults,
    ...(hasFailure(dataDirResults) ? [] : await checkWebhooks(dataDir)),
    ...(hasFailure(dataDirResults) ? [] : await checkEventLog(dataDir)),
    ...(hasFailure(dataDirResults) ? [] : await checkDaemon(dataDir)),
    ...(await checkTls(resolved.tls, resolved.listen, now)),
    ...(await checkListeners({
      listen: resolved.listen,
      modListen: resolved.modListen,
      tls: resolved.tls !== undefined,
    })),
    // The database client loads only for a group, as in serve.
    ...(config.group
      ? await (await import('./service/doctor/group-checks.ts')).checkGroup(config.group.database_url)
      : []),
  );
  if (flags.json) printJson(io, { ok: !hasFailure(results), checks: results });
  else printLines(io, `modgate doctor: ${dataDir}`, ...formatResults(results));
  if (hasFailure(results)) {
    const failures = results.filter((result) => result.level === 'fail').length;
    throw new CliError(
      `doctor found ${failures} problem${failures === 1 ? '' : 's'} to fix`,
      1,
      'doctor_failed',
    );
  }
}

async function configOf(flags: DoctorFlags, io: CliIo, results: CheckResult[]): Promise<Config> {
  const path = flags.config ?? io.env['MODGATE_CONFIG'];
  if (!path) return EMPTY_CONFIG;
  try {
    const config = await loadConfig(path);
    results.push(ok('config', `${path} is valid`));
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    results.push(
      fail('config', error.message, `fix the file; check it with: modgate config check --config ${path}`),
    );
    return EMPTY_CONFIG;
  }
}

/** The addresses and TLS files serve would use, with serve's own precedence. */
function resolve(config: Config, flags: DoctorFlags, io: CliIo, results: CheckResult[]): Resolved {
  try {
    const options = daemonOptions(config, flags, io.env);
    return {
      listen: options.listen,
      modListen: options.modListen,
      ...(options.tls ? { tls: options.tls } : {}),
    };
  } catch (error) {
    results.push(
      fail('environment', (error as Error).message, 'fix MODGATE_LISTEN / MODGATE_MOD_LISTEN (HOST:PORT)'),
    );
    return resolve(config, flags, { ...io, env: {} }, results);
  }
}
