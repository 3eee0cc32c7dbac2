/**
 * `npm run release`: the signed release in dist/release/ (docs/operations.md, "Verifying a release
 * by hand"): `modgate-linux-x64` and `-arm64`, the .deb and .rpm of each, `install.sh`,
 * `sbom.cdx.json`, `SHA256SUMS` of them all and its minisign signature `SHA256SUMS.minisig`, made
 * with the unencrypted secret key file MODGATE_RELEASE_KEY names (`minisign -G -W`). Each step is
 * a function below; the version is package.json's, and the signed trusted comment carries it
 * (`modgate <version> timestamp:… file:SHA256SUMS`) for install.sh and self-update to read.
 *
 * Run with `tsx scripts/release.ts [--out DIR] [--arch x64|arm64 …] [--test-release]`; without
 * MODGATE_RELEASE_KEY, or with a key that is not the one built into the binaries (outside a test
 * release), it refuses (exit 2) before building anything.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parsePublicKey } from '../cli/release/minisign.ts';
import {
  RELEASE_BASE_URL,
  RELEASE_PUBLIC_KEY,
  releaseKey,
  SIGNATURE_FILE,
  SUMS_FILE,
  trustedComment,
} from '../cli/release/release-source.ts';
import { buildBinary } from './build.ts';
import { ARCHES, readPin, type Arch } from './embedded-node.ts';
import { cyclonedxSbom } from './sbom.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export { ARCHES, type Arch };

export interface ReleaseOptions {
  outDir?: string;
  arches?: readonly Arch[];
  /** The unencrypted minisign secret key file. */
  keyFile: string;
  /** Build the .deb and .rpm (scripts/packages.ts); `--no-packages` leaves them out (tests). */
  packages?: boolean;
  log?: (line: string) => void;
  /** Where MODGATE_RELEASE_PUBKEY is read (releaseKey); process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A test release (`--test-release`): signed with the key MODGATE_RELEASE_PUBKEY names. */
  testRelease?: boolean;
}

export async function releaseVersion(): Promise<string> {
  return (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

export async function release(options: ReleaseOptions): Promise<{ dir: string; files: string[] }> {
  const out = resolve(options.outDir ?? join(ROOT, 'dist/release'));
  const log = options.log ?? (() => undefined);
  const version = await releaseVersion();
  const publicKey = await publicKeyOf(options.keyFile, options.env ?? process.env, options.testRelease);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const bundled = new Set<string>();
  const arches = options.arches ?? ARCHES;
  const binaries = await buildBinaries(out, arches, bundled, log);
  if (options.packages !== false) {
    for (const [arch, binary] of binaries) await buildPackages(arch, binary, out, log);
  }
  await writeInstallScript(out, publicKey);
  await writeSbom(out, version, bundled, arches);
  const files = await writeSums(out);
  await signSums(out, options.keyFile, version);
  log(`release ${version} in ${out}: ${files.join(', ')}, ${SUMS_FILE}, ${SIGNATURE_FILE}`);
  return { dir: out, files };
}

/**
 * The key file's public key, which must be the one built into the binaries (RELEASE_PUBLIC_KEY):
 * a release whose binaries could never verify their own updates is refused here. Only a test
 * release may be signed with another key, the one MODGATE_RELEASE_PUBKEY names (releaseKey), so
 * that variable left set in a shell cannot make a real release with a throwaway key.
 */
export async function publicKeyOf(
  keyFile: string,
  env: Readonly<Record<string, string | undefined>>,
  testRelease = false,
): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'modgate-release-key-'));
  try {
    await run('minisign', ['-R', '-s', keyFile, '-p', join(work, 'key.pub')]);
    const line = (await readFile(join(work, 'key.pub'), 'utf8')).trim().split('\n').at(-1) ?? '';
    const trusted = testRelease ? releaseKey(env) : parsePublicKey(RELEASE_PUBLIC_KEY);
    if (parsePublicKey(line).id !== trusted.id) {
      throw new ReleaseError(
        testRelease
          ? `${keyFile} is key ${parsePublicKey(line).id}, but MODGATE_RELEASE_PUBKEY names ${trusted.id}`
          : `${keyFile} is key ${parsePublicKey(line).id}, but modgate trusts ${trusted.id} (RELEASE_PUBLIC_KEY in cli/release/release-source.ts); a test release signed with a throwaway key needs --test-release`,
      );
    }
    return line;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** `modgate-linux-<arch>` for each arch, each built in a work folder of its own (scripts/build.ts). */
export async function buildBinaries(
  out: string,
  arches: readonly Arch[],
  bundled: Set<string>,
  log: (line: string) => void,
): Promise<Map<Arch, string>> {
  const binaries = new Map<Arch, string>();
  for (const arch of arches) {
    const work = join(out, `.build-${arch}`);
    const { binary } = await buildBinary({
      arch,
      outDir: work,
      bundled,
      log: (line) => log(`${arch} ${line}`),
    });
    const target = join(out, `modgate-linux-${arch}`);
    await copyFile(binary, target);
    await rm(work, { recursive: true, force: true });
    binaries.set(arch, target);
  }
  return binaries;
}

/** The .deb and .rpm of one arch, by scripts/packages.ts. */
export async function buildPackages(
  arch: Arch,
  binary: string,
  out: string,
  log: (line: string) => void,
): Promise<void> {
  const script = join(ROOT, 'scripts/packages.ts');
  if (!existsSync(script)) throw new ReleaseError('scripts/packages.ts is not there yet; pass --no-packages');
  const tsx = join(ROOT, 'node_modules/.bin/tsx');
  await run(tsx, [script, '--arch', arch, '--binary', binary, '--out', out], { maxBuffer: 16 * 1024 * 1024 });
  log(`packages ${arch}`);
}

/** scripts/release/install.sh with the release location and the signing key filled in. */
export async function writeInstallScript(out: string, publicKey: string): Promise<string> {
  const template = await readFile(join(ROOT, 'scripts/release/install.sh'), 'utf8');
  const script = template.replace('@BASE_URL@', RELEASE_BASE_URL).replace('@PUBLIC_KEY@', publicKey);
  const path = join(out, 'install.sh');
  await writeFile(path, script, { mode: 0o755 });
  return path;
}

export async function writeSbom(
  out: string,
  version: string,
  bundled: Iterable<string>,
  arches: readonly Arch[],
): Promise<string> {
  const nodes = await Promise.all(arches.map((arch) => readPin(arch)));
  const sbom = await cyclonedxSbom({ root: ROOT, version, bundled, nodes });
  const path = join(out, 'sbom.cdx.json');
  await writeFile(path, `${JSON.stringify(sbom, null, 2)}\n`);
  return path;
}

/** SHA256SUMS in sha256sum's format of every file in `out` (not the sums or their signature). */
export async function writeSums(out: string): Promise<string[]> {
  const names = (await readdir(out, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .filter((name) => name !== SUMS_FILE && name !== SIGNATURE_FILE)
    .sort();
  const lines: string[] = [];
  for (const name of names) {
    const sha256 = createHash('sha256')
      .update(await readFile(join(out, name)))
      .digest('hex');
    lines.push(`${sha256}  ${name}\n`);
  }
  await writeFile(join(out, SUMS_FILE), lines.join(''));
  return names;
}

/** SHA256SUMS.minisig by Debian's `minisign`, the trusted comment naming the version. */
export async function signSums(
  out: string,
  keyFile: string,
  version: string,
  seconds = Math.floor(Date.now() / 1000),
): Promise<void> {
  await run('minisign', [
    '-S',
    '-s',
    keyFile,
    '-m',
    join(out, SUMS_FILE),
    '-x',
    join(out, SIGNATURE_FILE),
    '-c',
    `modgate ${version} release`,
    '-t',
    trustedComment(version, seconds),
  ]).catch((error: unknown) => {
    throw new ReleaseError(`minisign could not sign with ${keyFile}: ${(error as Error).message}`);
  });
}

/** A release that cannot be made as asked: exit 2 from the command line. */
export class ReleaseError extends Error {}

function argsOf(argv: readonly string[]): {
  outDir?: string;
  arches?: Arch[];
  packages: boolean;
  testRelease: boolean;
} {
  const value = (flag: string) => argv[argv.indexOf(flag) + 1];
  const arches = argv.flatMap((arg, i) => (argv[i - 1] === '--arch' ? [arg as Arch] : []));
  return {
    ...(argv.includes('--out') ? { outDir: value('--out') } : {}),
    ...(arches.length > 0 ? { arches } : {}),
    packages: !argv.includes('--no-packages'),
    testRelease: argv.includes('--test-release'),
  };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const keyFile = process.env.MODGATE_RELEASE_KEY;
  if (keyFile === undefined || keyFile === '') {
    process.stderr.write(
      'npm run release: set MODGATE_RELEASE_KEY to the release secret key file (unencrypted, minisign -G -W); nothing was built\n',
    );
    process.exit(2);
  }
  try {
    await release({
      ...argsOf(process.argv.slice(2)),
      keyFile,
      log: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (error) {
    process.stderr.write(`npm run release: ${(error as Error).message}\n`);
    process.exit(error instanceof ReleaseError ? 2 : 1);
  }
}
