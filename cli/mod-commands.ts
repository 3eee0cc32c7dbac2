/**
 * `modgate mod credentials`: prints mod-credentials.json (the mod's key pair, the daemon key to
 * pin, the mod-link URL) so the operator can copy it to the game server's mod config. Only the
 * JSON goes to stdout, so `> mod-credentials.json` works.
 */
import type { Command } from 'commander';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { printJson, type CliIo } from './io.ts';
import { openDataDirOf, withDataDirOption } from './options.ts';

export function registerModCommands(program: Command, io: CliIo): void {
  const mod = program.command('mod').description('the game mod side of the link');

  withDataDirOption(
    mod
      .command('credentials')
      .description("print mod-credentials.json, to copy to the game server's mod config"),
  ).action(async (flags: { dataDir?: string }) => {
    const dataDir = await openDataDirOf(flags, io);
    const credentials = await dataDir.read(modCredentialsFile);
    printJson(io, modCredentialsFile.serialize(credentials));
  });
}
