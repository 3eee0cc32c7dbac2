/**
 * `modgate self-update`'s steps for a bare-binary install (docs/operations.md, "Updating"): which
 * package manager owns the binary (then apt/dnf update it, not us), the installed version, the
 * verified download, the atomic swap that keeps `<binary>.previous`, and the systemd instances to
 * restart. Each step is a function so self-update-command.ts reads as the order they run in.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { link, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CliError, EXIT_OPERATIONAL } from '../errors.ts';
import { SignatureError, type MinisignPublicKey } from './minisign.ts';
import { fetchBytes, readSignedRelease, type SignedRelease } from './release-source.ts';

const run = promisify(execFile);
type Env = Readonly<Record<string, string | undefined>>;

/** The release artifact this machine runs: `modgate-linux-x64` or `modgate-linux-arm64`. */
export function artifactName(arch: string = process.arch): string {
  if (arch !== 'x64' && arch !== 'arm64')
    throw new CliError(`no modgate release for the ${arch} architecture`);
  return `modgate-linux-${arch}`;
}

/** `dpkg -S` / `rpm -qf`: the package that owns `path`, or undefined (no such tool, or no owner). */
export async function owningPackage(path: string, env: Env): Promise<string | undefined> {
  for (const [tool, args] of [
    ['dpkg', ['-S', path]],
    ['rpm', ['-qf', path]],
  ] as const) {
    try {
      const { stdout } = await run(tool, [...args], { env: { ...env } });
      return `${tool === 'dpkg' ? 'deb' : 'rpm'} package ${stdout.trim().split(':')[0]}`;
    } catch {
      // Not installed, or no package owns the path: the next tool, then none.
    }
  }
  return undefined;
}

/** The version `<binary> --version` prints on its first line (`modgate 0.1.0`). */
export async function installedVersion(binary: string, env: Env): Promise<string> {
  const { stdout } = await run(binary, ['--version'], { env: { ...env } }).catch((error: unknown) => {
    throw new CliError(`${binary} --version failed: ${(error as Error).message}`);
  });
  const version = /^modgate (\S+)/.exec(stdout)?.[1];
  if (version === undefined)
    throw new CliError(`${binary} is not modgate: --version printed ${stdout.trim()}`);
  return version;
}

/** Negative when a < b, by the numeric parts of `major.minor.patch`; a pre-release sorts first. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.replace(/^v/, '').split('-', 2);
    return { parts: core.split('.').map(Number), pre };
  };
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/**
 * The release in `dir`, its SHA256SUMS verified with `key`. A refused signature is the outcome
 * this check exists for, not a failure of modgate's: it is said as such (`bad_signature`), as is
 * a release that cannot be read, and neither touched the binary.
 */
export async function verifiedRelease(dir: string, key: MinisignPublicKey): Promise<SignedRelease> {
  try {
    return await readSignedRelease(dir, key);
  } catch (error) {
    const message = (error as Error).message;
    if (error instanceof SignatureError) {
      throw new CliError(
        `the release in ${dir} fails its signature check: ${message}; nothing was changed`,
        EXIT_OPERATIONAL,
        'bad_signature',
      );
    }
    throw new CliError(
      `could not read the release in ${dir}: ${message}`,
      EXIT_OPERATIONAL,
      'release_unreadable',
    );
  }
}

/** The artifact's bytes, refused unless their sha256 is the one the signed SHA256SUMS lists. */
export async function verifiedArtifact(release: SignedRelease, name: string): Promise<Buffer> {
  const expected = release.sums.get(name);
  if (expected === undefined)
    throw new CliError(`the release ${release.version} lists no ${name} in SHA256SUMS`);
  const bytes = await fetchBytes(release.dir + name);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected) {
    throw new CliError(
      `${name} does not match SHA256SUMS (sha256 ${actual}, signed ${expected}); nothing was changed`,
      EXIT_OPERATIONAL,
      'checksum_mismatch',
    );
  }
  return bytes;
}

/**
 * Writes `bytes` beside `target` (same mode, fsynced), checks the new file answers `--version` with
 * `version`, keeps the current binary as `<target>.previous` and renames the new one over it:
 * at every moment `target` is either the old binary or the new one, whole.
 */
export async function replaceBinary(target: string, bytes: Buffer, version: string, env: Env): Promise<void> {
  const staged = join(dirname(target), `.${basename(target)}.update-${process.pid}`);
  const { mode } = await stat(target);
  try {
    const file = await open(staged, 'wx', mode & 0o7777);
    try {
      await file.writeFile(bytes);
      await file.chmod(mode & 0o7777);
      await file.sync();
    } finally {
      await file.close();
    }
    const stagedVersion = await installedVersion(staged, env);
    if (stagedVersion !== version) {
      throw new CliError(
        `the downloaded binary says it is ${stagedVersion}, the signed release says ${version}`,
      );
    }
    await keepPrevious(target);
    await rename(staged, target);
    await syncDir(dirname(target));
  } finally {
    await rm(staged, { force: true });
  }
}

/** `--rollback`: `<target>.previous` back in place, atomically. */
export async function rollBack(target: string): Promise<void> {
  const previous = `${target}.previous`;
  await stat(previous).catch(() => {
    throw new CliError(`no ${previous} to roll back to: self-update keeps one after an update`);
  });
  await rename(previous, target);
  await syncDir(dirname(target));
}

async function keepPrevious(target: string): Promise<void> {
  const previous = `${target}.previous`;
  await rm(previous, { force: true });
  // A hard link: the old binary's bytes stay under the second name when the new one is renamed in.
  await link(target, previous);
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Restarts the running `modgate*` services (`systemctl list-units`); resolves to the lines to
 * print: what was restarted, or which to restart by hand when systemctl is missing or fails.
 */
export async function restartInstances(env: Env): Promise<string[]> {
  const listArgs = ['list-units', 'modgate*', '--type=service', '--state=running', '--plain', '--no-legend'];
  let units: string[];
  try {
    const { stdout } = await run('systemctl', listArgs, { env: { ...env } });
    units = stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0] ?? '')
      .filter((unit) => unit.startsWith('modgate'));
  } catch {
    return [
      'systemctl could not list the services: restart the running ones yourself, e.g.',
      '  sudo systemctl restart modgate            # and each modgate@NAME',
    ];
  }
  if (units.length === 0) return ['No modgate service is running: nothing to restart.'];
  const failed: string[] = [];
  for (const unit of units) {
    await run('systemctl', ['restart', unit], { env: { ...env } }).catch(() => failed.push(unit));
  }
  const restarted = units.filter((unit) => !failed.includes(unit));
  return [
    ...(restarted.length > 0 ? [`Restarted ${restarted.join(', ')}.`] : []),
    ...(failed.length > 0
      ? [`Could not restart ${failed.join(', ')}: sudo systemctl restart ${failed.join(' ')}`]
      : []),
  ];
}
