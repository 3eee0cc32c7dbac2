/** `modgate config check --config FILE`: validates an operator config file without starting anything. */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../config/config.ts';
import { daemonOptions } from '../config/settings.ts';
import { formatHostPort } from '../host-port.ts';
import { CliError, UsageError } from './errors.ts';
import { printLines, type CliIo } from './io.ts';

export function registerConfigCommand(program: Command, io: CliIo): void {
  const config = program.command('config').description('the operator config file');
  config
    .command('check')
    .description('validate a config file and print the settings it gives')
    .option('--config <file>', 'the config file (default: $MODGATE_CONFIG)')
    .action(async (flags: { config?: string }) => {
      const path = flags.config ?? io.env['MODGATE_CONFIG'];
      if (!path) throw new UsageError('give --config FILE or set MODGATE_CONFIG');
      let loaded;
      try {
        loaded = await loadConfig(path);
      } catch (error) {
        if (error instanceof ConfigError) throw new CliError(error.message);
        throw error;
      }
      const effective = daemonOptions(loaded, {}, io.env);
      printLines(
        io,
        `${path}: ok`,
        `  api listen       ${formatHostPort(effective.listen)}${effective.tls ? ' (HTTPS)' : ' (plain HTTP, loopback only)'}`,
        `  mod link listen  ${formatHostPort(effective.modListen)}`,
        `  trusted proxies  ${loaded.api.trusted_proxies.length === 0 ? 'none' : loaded.api.trusted_proxies.join(', ')}`,
        `  log level        ${loaded.log.level}`,
      );
    });
}
