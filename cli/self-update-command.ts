/**
 * `modgate self-update [--check] [--to VERSION] [--allow-downgrade] [--rollback]`: updates a
 * bare-binary install from the signed release (cli/release/), keeping the previous binary for
 * `--rollback`, then restarts the running systemd instances. A binary a package manager owns is
 * left to apt or dnf. docs/operations.md, "Updating".
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { isSea } from 'node:sea';
import type { Command } from 'commander';
import { CliError, EXIT_USAGE, UsageError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { releaseBase, releaseDir, releaseKey } from './release/release-source.ts';
import {
  artifactName,
  compareVersions,
  installedVersion,
  owningPackage,
  replaceBinary,
  restartInstances,
  rollBack,
  verifiedArtifact,
  verifiedRelease,
} from './release/self-update.ts';

interface SelfUpdateFlags {
  check?: boolean;
  to?: string;
  allowDowngrade?: boolean;
  rollback?: boolean;
  binary?: string;
  json?: boolean;
}

export function registerSelfUpdateCommand(program: Command, io: CliIo): void {
  program
    .command('self-update')
    .description('update this binary from the signed release (bare-binary installs; packages use apt/dnf)')
    .option('--check', 'print the installed and the newest version; change nothing')
    .option('--to <version>', 'install this version instead of the newest')
    .option('--allow-downgrade', 'install a version older than the installed one')
    .option('--rollback', 'put back the binary the last update replaced (<binary>.previous)')
    .option('--binary <path>', 'the installed binary to update (default: this one)')
    .action(async (flags: SelfUpdateFlags) => selfUpdate(flags, io));
}

async function selfUpdate(flags: SelfUpdateFlags, io: CliIo): Promise<void> {
  const target = targetBinary(flags.binary);
  const owner = await owningPackage(target, io.env);
  if (owner !== undefined) {
    throw new CliError(
      `${target} belongs to the ${owner}: update it with your package manager ` +
        '(sudo apt install --only-upgrade modgate, or sudo dnf upgrade modgate)',
      EXIT_USAGE,
      'package_managed',
    );
  }
  if (flags.rollback) {
    await rollBack(target);
    const version = await installedVersion(target, io.env);
    return report(io, flags, { binary: target, version, rolled_back: true }, [
      `Rolled back: ${target} is modgate ${version} again.`,
      ...(await restartInstances(io.env)),
    ]);
  }
  const installed = await installedVersion(target, io.env);
  const release = await verifiedRelease(releaseDir(releaseBase(io.env), flags.to), releaseKey(io.env));
  const order = compareVersions(release.version, installed);
  if (flags.check) {
    const newer = order > 0;
    return report(
      io,
      flags,
      { binary: target, installed, newest: release.version, update_available: newer },
      [
        `installed ${installed}, newest ${release.version}: ${newer ? 'an update is available (modgate self-update)' : 'up to date'}`,
      ],
    );
  }
  if (order === 0) {
    return report(io, flags, { binary: target, version: installed, updated: false }, [
      `${target} is already modgate ${installed}: nothing to do.`,
    ]);
  }
  if (order < 0 && !flags.allowDowngrade) {
    throw new CliError(
      `${release.version} is older than the installed ${installed}; pass --allow-downgrade to install it anyway`,
      EXIT_USAGE,
      'downgrade',
    );
  }
  const bytes = await verifiedArtifact(release, artifactName());
  await replaceBinary(target, bytes, release.version, io.env);
  return report(io, flags, { binary: target, from: installed, version: release.version, updated: true }, [
    `Updated ${target}: modgate ${installed} → ${release.version} (the previous binary is ${target}.previous; modgate self-update --rollback puts it back).`,
    ...(await restartInstances(io.env)),
  ]);
}

function report(io: CliIo, flags: SelfUpdateFlags, json: Record<string, unknown>, lines: string[]): void {
  if (flags.json) printJson(io, json);
  else printLines(io, ...lines);
}

/** --binary, else this very executable; from a checkout there is no binary to update. */
function targetBinary(flag: string | undefined): string {
  if (flag !== undefined) return resolve(flag);
  if (!isSea()) throw new UsageError('modgate runs from a checkout here, not a binary: pass --binary PATH');
  return realpathSync(process.execPath);
}
