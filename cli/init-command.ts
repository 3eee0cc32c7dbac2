/** `modgate init --data-dir DIR [--name NAME] [--json]` (docs/commands.md). */
import { join } from 'node:path';
import type { Command } from 'commander';
import type { HostPort } from '../daemon/host-port.ts';
import { DATA_FILES } from '../daemon/store/data-dir.ts';
import { initDataDir, type InitReport } from '../daemon/store/init-data-dir.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { dataDirOf, hostPort, parseServerName, withDataDirOption } from './options.ts';

interface InitFlags {
  dataDir?: string;
  name?: string;
  modListen?: HostPort;
  json?: boolean;
}

export function registerInitCommand(program: Command, io: CliIo): void {
  withDataDirOption(
    program
      .command('init')
      .description('create the data dir: identity, mod credentials, state (idempotent; safe to run again)'),
  )
    .option('--name <name>', 'a name for this server; on an existing data dir, renames it', parseServerName)
    .option(
      '--mod-listen <host:port>',
      "the address serve's mod link will listen on, written to mod-credentials.json's url (default: MODGATE_MOD_LISTEN, else 127.0.0.1:8788 on a new data dir)",
      hostPort,
    )
    .option('--json', 'print the result as one JSON object')
    .action(async (flags: InitFlags) => {
      const dir = dataDirOf(flags, io);
      const env = io.env['MODGATE_MOD_LISTEN'];
      const modListen = flags.modListen ?? (env ? hostPort(env) : undefined);
      const report = await initDataDir(dir, { name: flags.name, now: io.now(), modListen });
      if (flags.json) printJson(io, initJson(report));
      else printLines(io, ...initLines(report));
    });
}

function initJson(report: InitReport): Record<string, unknown> {
  return {
    data_dir: report.dir,
    server_id: report.identity.serverId,
    name: report.identity.name,
    changed: report.created.length > 0 || report.updated.length > 0,
    created: report.created,
    updated: report.updated,
  };
}

function initLines(report: InitReport): string[] {
  const { dir, identity, created, updated } = report;
  if (created.length === 0 && updated.length === 0) {
    return [`${dir} is already initialised (server ${identity.serverId}); nothing changed.`];
  }
  const lines: string[] = [];
  if (created.includes(DATA_FILES.identity)) {
    lines.push(`Initialised modgate data dir ${dir}`);
    lines.push(`  server id: ${identity.serverId}${identity.name === null ? '' : ` (${identity.name})`}`);
  } else {
    lines.push(`Updated modgate data dir ${dir} (server ${identity.serverId})`);
  }
  if (created.length > 0) lines.push(`  created: ${created.join(', ')}`);
  for (const change of updated) lines.push(`  ${change}`);
  if (created.includes(DATA_FILES.identity)) lines.push(...nextSteps(dir));
  return lines;
}

function nextSteps(dir: string): string[] {
  return [
    '',
    'The API ships disabled and no premium plan is set. Next steps:',
    `  modgate plan set --data-dir ${dir} --premium on`,
    `  modgate keys create --data-dir ${dir} --name my-bot --scopes server:read`,
    `  modgate api enable --data-dir ${dir}`,
    `Copy ${join(dir, DATA_FILES.modCredentials)} to the game server's mod config (modgate docs data-dir).`,
  ];
}
