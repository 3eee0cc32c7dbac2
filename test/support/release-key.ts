/**
 * Throwaway minisign keys and small signed releases for the release tests: keys by the real
 * `minisign -G -W`, releases by scripts/release.ts's own writeSums and signSums. The "binaries" in
 * a fake release are shell scripts that print `modgate <version>`, so self-update's tests run
 * without building the executable.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
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
