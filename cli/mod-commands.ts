/**
 * `modgate mod credentials`: prints mod-credentials.json (the mod's key pair, the daemon key to
 * pin, the mod-link URL) so the operator can copy it to the game server's mod config. Only the
 * JSON goes to stdout, so `> mod-credentials.json` works. `modgate mod test`: the conformance
 * harness (docs/mod-testing.md), loaded only when it runs (mod-test-command.ts).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { printJson, type CliIo } from './io.ts';
import { hostPort, openDataDirOf, withDataDirOption } from './options.ts';

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

  withDataDirOption(
    mod.command('test').description('play the daemon against a real mod and check it case by case'),
  )
    .option('--listen <host:port>', "where the mod dials (default: mod-credentials.json's url)", hostPort)
    .option('--wait <duration>', 'how long to wait for the mod to connect', waitDuration, 60_000)
    .option(
      '--only <pattern>',
      'run only cases whose id or op matches (* any text; repeatable)',
      patterns,
      [],
    )
    .option('--skip <pattern>', 'leave out cases whose id or op matches (repeatable)', patterns, [])
    .option(
      '--op-deadline <duration>',
      "cap each op's deadline_ms (default: the op's own, 5 or 10 s)",
      waitDuration,
    )
    .option('--junit <file>', 'also write the results as JUnit XML')
    .option('--json', 'print {cases, summary} as JSON instead of the table')
    .option('--list', 'print the cases --only and --skip select, and exit without waiting for a mod')
    .action(async (flags) => (await import('./mod-test-command.ts')).modTest(flags, io));
}

function waitDuration(value: string): number {
  const match = /^(\d{1,7})(ms|s|m)$/.exec(value.trim());
  const ms = match ? Number(match[1]) * { ms: 1, s: 1_000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'] : NaN;
  if (!(ms >= 1 && ms <= 3_600_000))
    throw new InvalidArgumentError('expected a duration such as 60s, 500ms or 2m (at most 60m)');
  return ms;
}

/** Repeatable, and each value may be a comma list: `--only 'op.players.*,handshake.*'`. */
function patterns(value: string, previous: string[]): string[] {
  const added = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (added.length === 0 || added.some((p) => !/^[A-Za-z0-9_.*-]{1,100}$/.test(p))) {
    throw new InvalidArgumentError('expected case ids or op names, with * for any text (e.g. op.players.*)');
  }
  return [...previous, ...added];
}
