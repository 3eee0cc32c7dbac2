/**
 * `modgate healthcheck`: one `GET /healthz` to the API listener that `serve` would use, for a
 * container runtime's health check (Docker's HEALTHCHECK runs a command inside the image, and the
 * distroless image has no shell and no curl: docs/docker.md). The listener and the protocol are
 * resolved the way serve resolves them: flag, then MODGATE_LISTEN, then the config file
 * (`--config`, else MODGATE_CONFIG), then the default; HTTPS when a certificate is configured. A
 * wildcard listener is asked on loopback.
 *
 * Exit 0 on 200, 1 on anything else (another status, no answer, a bad config file): Docker
 * reads 0 as healthy and 1 as unhealthy, and reserves 2, so only a bad flag on the health
 * check's own command line exits 2, as everywhere.
 */
import type { Command } from 'commander';
import { ConfigError, EMPTY_CONFIG, loadConfig } from '../daemon/config/config.ts';
import { daemonOptions, DEFAULT_LISTEN } from '../daemon/config/settings.ts';
import type { HostPort } from '../daemon/host-port.ts';
import { HEALTHZ_PATH, parseHealthText } from '../daemon/http/healthz.ts';
import { localGet, localUrl } from './service/local-get.ts';
import { CliError, UsageError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { hostPort, integer } from './options.ts';

interface HealthcheckFlags {
  config?: string;
  listen?: HostPort;
  tlsCert?: string;
  tlsKey?: string;
  requireMod?: boolean;
  timeout: number;
  json?: boolean;
}

export function registerHealthcheckCommand(program: Command, io: CliIo): void {
  program
    .command('healthcheck')
    .description(
      "GET /healthz on serve's API address: exit 0 on 200, 1 otherwise (for container health checks)",
    )
    .option('--config <file>', 'the config file serve uses (default: $MODGATE_CONFIG)')
    .option(
      '--listen <host:port>',
      `the API address (default: $MODGATE_LISTEN, the config, ${DEFAULT_LISTEN})`,
      hostPort,
    )
    .option('--tls-cert <file>', 'serve has this certificate: ask over HTTPS')
    .option('--tls-key <file>', 'the private key for --tls-cert (as serve takes it)')
    .option('--require-mod', 'ask /healthz?mod=required: unhealthy while no mod is connected')
    .option('--timeout <ms>', 'give up after this long', integer(1, 600_000), 3_000)
    .option('--json', 'print the answer as JSON')
    .action(async (flags: HealthcheckFlags) => healthcheck(flags, io));
}

async function healthcheck(flags: HealthcheckFlags, io: CliIo): Promise<void> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const { listen, tls } = await target(flags, io);
  const path = flags.requireMod ? `${HEALTHZ_PATH}?mod=required` : HEALTHZ_PATH;
  const url = localUrl(listen, path, tls);
  const answer = await localGet(listen, path, tls, flags.timeout).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot reach ${url}: ${error.code ?? error.message}`, 1, 'unhealthy');
  });
  const health = parseHealthText(answer.body);
  const summary = health
    ? `${health.status}, mod ${health.mod_connected ? 'connected' : 'not connected'}`
    : 'not a modgate /healthz body';
  if (flags.json) printJson(io, { healthy: answer.status === 200, url, status: answer.status, health });
  if (answer.status !== 200)
    throw new CliError(`${url} answered ${answer.status} (${summary})`, 1, 'unhealthy');
  if (!flags.json) printLines(io, `healthy: ${url} answered 200 (${summary})`);
}

/** The address and protocol serve would use; a config problem is exit 1 here (Docker reserves 2). */
async function target(flags: HealthcheckFlags, io: CliIo): Promise<{ listen: HostPort; tls: boolean }> {
  const path = flags.config ?? io.env['MODGATE_CONFIG'];
  try {
    const config = path ? await loadConfig(path) : EMPTY_CONFIG;
    const options = daemonOptions(config, flags, io.env);
    return { listen: options.listen, tls: options.tls !== undefined };
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, 1, 'config_invalid');
    throw error;
  }
}
