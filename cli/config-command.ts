/**
 * `modgate config check --config FILE [--json]`: validates an operator config file without
 * starting anything. A bad file exits 2, like `serve` refusing it, with every problem named by
 * its key (`api.listen: …`).
 */
import type { Command } from 'commander';
import { loadConfig } from '../daemon/config/config.ts';
import { daemonOptions } from '../daemon/config/settings.ts';
import { formatHostPort } from '../daemon/host-port.ts';
import { UsageError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';

export function registerConfigCommand(program: Command, io: CliIo): void {
  const config = program.command('config').description('the operator config file');
  config
    .command('check')
    .description('validate a config file and print the settings it gives')
    .option('--config <file>', 'the config file (default: $MODGATE_CONFIG)')
    .option('--json', 'print the settings as one JSON object')
    .action(async (flags: { config?: string; json?: boolean }) => {
      const path = flags.config ?? io.env['MODGATE_CONFIG'];
      if (!path) throw new UsageError('give --config FILE or set MODGATE_CONFIG');
      const loaded = await loadConfig(path);
      const effective = daemonOptions(loaded, {}, io.env);
      const metrics = effective.metrics ? formatHostPort(effective.metrics.listen) : null;
      if (flags.json) {
        printJson(io, {
          config: path,
          ok: true,
          api_listen: formatHostPort(effective.listen),
          tls: effective.tls !== undefined,
          mod_link_listen: formatHostPort(effective.modListen),
          metrics_listen: metrics,
          metrics_allow: effective.metrics?.allow ?? [],
          trusted_proxies: loaded.api.trusted_proxies,
          log_level: loaded.log.level,
          log_format: loaded.log.format ?? null,
        });
        return;
      }
      printLines(
        io,
        `${path}: ok`,
        `  api listen       ${formatHostPort(effective.listen)}${effective.tls ? ' (HTTPS)' : ' (plain HTTP, loopback only)'}`,
        `  mod link listen  ${formatHostPort(effective.modListen)}`,
        `  metrics listen   ${metrics ?? 'off'}`,
        `  trusted proxies  ${loaded.api.trusted_proxies.length === 0 ? 'none' : loaded.api.trusted_proxies.join(', ')}`,
        `  log              ${loaded.log.level}, ${loaded.log.format ?? 'json under systemd, pretty at a terminal'}`,
      );
    });
}
