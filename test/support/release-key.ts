/**
 * Throwaway minisign keys and small signed releases for the release tests: keys by the real
 * `minisign -G -W`, releases by scripts/release.ts's own writeSums and signSums. The "binaries" in
 * a fake release are shell scripts that print `modgate <version>`, so self-update's tests run
 * without building the executable.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signSums, writeSums } from '../../scripts/release.ts';

const run = promisify(execFile);

export interface TestKey {
  readonly secret: string;
  readonly pub: string;
  /** The public key's base64 line (`minisign -P`, MODGATE_RELEASE_PUBKEY). */
  readonly line: string;
}

/**
 * Whether Debian's minisign is installed; with MODGATE_REQUIRE_MINISIGN set (.ci/run installs it)
 * its absence throws, so the release tests fail instead of skipping.
 */
export function minisignInstalled(): boolean {
  try {
    execFileSync('minisign', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.MODGATE_REQUIRE_MINISIGN)
      throw new Error('minisign is required (MODGATE_REQUIRE_MINISIGN)');
    return false;
  }
}

export async function makeKey(dir: string, name = 'release'): Promise<TestKey> {
  await mkdir(dir, { recursive: true });
  const secret = join(dir, `${name}.key`);
  const pub = join(dir, `${name}.pub`);
  await run('minisign', ['-G', '-W', '-f', '-s', secret, '-p', pub]);
  const line = (await readFile(pub, 'utf8')).trim().split('\n').at(-1) ?? '';
  return { secret, pub, line };
}

/** A script that answers `--version` as modgate `version` would. */
export function fakeBinary(version: string): string {
  return `#!/bin/sh\necho "modgate ${version}"\n`;
}

/** `<base>/v<version>/` with a fake binary for `arch`, signed; `latest` too when asked. */
export async function fakeRelease(
  base: string,
  version: string,
  key: TestKey,
  options: { latest?: boolean; arch?: string } = {},
): Promise<string> {
  const dir = join(base, `v${version}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `modgate-linux-${options.arch ?? process.arch}`), fakeBinary(version), {
    mode: 0o755,
  });
  await writeSums(dir);
  await signSums(dir, key.secret, version);
  if (options.latest) await cp(dir, join(base, 'latest'), { recursive: true });
  return dir;
}

/** The ways the release tests tamper with a signed release, each one verification step. */
export const TAMPERINGS = [
  'a changed artifact',
  'a changed SHA256SUMS',
  'a changed trusted comment',
  'a signature by another key',
] as const;
export type Tampering = (typeof TAMPERINGS)[number];

/**
 * Tampers with `latest` (a mirror's `latest/`, whose files link to the release `release.dir`):
 * the artifact (`modgate-linux-x64` unless named) or SHA256SUMS one byte off, the trusted comment
 * naming another version, or the list signed by `release.other`. A link is replaced by a file,
 * never written through, so the release itself stays whole for the next test.
 */
export async function tamper(
  kind: Tampering,
  latest: string,
  release: { dir: string; version: string; other: TestKey; artifact?: string },
): Promise<void> {
  const replace = async (name: string, content: string | Buffer) => {
    await rm(join(latest, name));
    await writeFile(join(latest, name), content);
  };
  const text = async (name: string) => readFile(join(latest, name), 'utf8');
  const artifact = release.artifact ?? 'modgate-linux-x64';
  if (kind === 'a changed artifact') {
    await replace(artifact, Buffer.concat([await readFile(join(release.dir, artifact)), Buffer.from('x')]));
  } else if (kind === 'a changed SHA256SUMS') {
    await replace(
      'SHA256SUMS',
      (await text('SHA256SUMS')).replace(/^./, (c) => (c === '0' ? '1' : '0')),
    );
  } else if (kind === 'a changed trusted comment') {
    const signature = await text('SHA256SUMS.minisig');
    await replace(
      'SHA256SUMS.minisig',
      signature.replace(/^trusted comment: modgate \S+/m, 'trusted comment: modgate 99.0.0'),
    );
  } else {
    await rm(join(latest, 'SHA256SUMS.minisig'));
    await signSums(latest, release.other.secret, release.version);
  }
}
