/**
 * `modgate self-update` as a provider runs it: the single executable updating itself. The binary
 * trusts only the key built into it, so this file builds two with a throwaway key
 * (scripts/build.ts `releasePublicKey`): version A, package.json's, installed where install.sh
 * puts a bare binary (`<root>/usr/local/bin/modgate`, a scratch root), and version B, a minor
 * release later, published with A in a file:// release signed with that key (scripts/release.ts's
 * writeSums and signSums; x64 only, no packages: arm64 is test/e2e/dist/binary-arm64.test.ts's).
 * The installed binary checks, updates, rolls back and refuses a downgrade; a tampered binary,
 * SHA256SUMS, trusted comment or signature is refused with the old binary untouched and runnable.
 * No systemd runs here: what it says to restart is asserted from its output.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinary } from '../../../scripts/build.ts';
import { releaseVersion, signSums, writeSums } from '../../../scripts/release.ts';
import {
  makeKey,
  minisignInstalled,
  tamper,
  TAMPERINGS,
  type Tampering,
  type TestKey,
} from '../../support/release-key.ts';

const run = promisify(execFile);
const BUILD_MS = 1_200_000;
/** One self-update reads, hashes, writes and syncs a 120 MB binary and runs it: slow under load. */
const UPDATE_MS = 180_000;
const ARTIFACT = 'modgate-linux-x64';

describe.runIf(minisignInstalled() && process.arch === 'x64')('the built binary updating itself', () => {
  let work: string;
  let key: TestKey;
  let other: TestKey;
  let versionA: string;
  let versionB: string;
  /** v<A>/ and v<B>/, each the binary, SHA256SUMS and its signature by `key`. */
  let releases: Record<'a' | 'b', string>;
  let sha: Record<'a' | 'b', string>;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'modgate-self-update-'));
    key = await makeKey(join(work, 'keys'));
    other = await makeKey(join(work, 'keys'), 'other');
    versionA = await releaseVersion();
    const [major, minor] = versionA.split('.').map(Number);
    versionB = `${major}.${(minor ?? 0) + 1}.0`;
    releases = {
      a: await signedRelease(versionA),
      b: await signedRelease(versionB),
    };
    sha = {
      a: await sha256(join(releases.a, ARTIFACT)),
      b: await sha256(join(releases.b, ARTIFACT)),
    };
  }, BUILD_MS);
  afterAll(async () => rm(work, { recursive: true, force: true }));

  /** `<work>/v<version>/`: the x64 binary built as `version` trusting `key`, signed like a release. */
  async function signedRelease(version: string): Promise<string> {
    const dir = join(work, `v${version}`);
    const build = join(work, `build-${version}`);
    const { binary } = await buildBinary({
      arch: 'x64',
      outDir: build,
      version,
      releasePublicKey: await readFile(key.pub, 'utf8'),
    });
    await mkdir(dir);
    await copyFile(binary, join(dir, ARTIFACT));
    await rm(build, { recursive: true, force: true });
    await writeSums(dir);
    await signSums(dir, key.secret, version);
    return dir;
  }

  async function sha256(file: string): Promise<string> {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  }

  /**
   * `<base>/latest/` (B's files, as links) and `<base>/v<A>/`, `<base>/v<B>/`; tampering replaces
   * a link in latest/ with a file (`tamper`), never writing through it.
   */
  async function mirror(): Promise<string> {
    const base = await mkdtemp(join(work, 'mirror-'));
    await mkdir(join(base, 'latest'));
    for (const name of await readdir(releases.b)) {
      await symlink(join(releases.b, name), join(base, 'latest', name));
    }
    await symlink(releases.a, join(base, `v${versionA}`));
    await symlink(releases.b, join(base, `v${versionB}`));
    return base;
  }

  /** A bare-binary install of `which` under a scratch root, where install.sh puts it. */
  async function install(which: 'a' | 'b'): Promise<string> {
    const root = await mkdtemp(join(work, 'root-'));
    const binary = join(root, 'usr/local/bin/modgate');
    await mkdir(dirname(binary), { recursive: true });
    await copyFile(join(releases[which], ARTIFACT), binary);
    await chmod(binary, 0o755);
    return binary;
  }

  /** The installed binary itself, run with only PATH, HOME and the mirror in its environment. */
  async function modgate(binary: string, base: string, args: string[], env: Record<string, string> = {}) {
    return run(binary, args, {
      env: { PATH: process.env.PATH ?? '', HOME: work, MODGATE_BASE_URL: pathToFileURL(base).href, ...env },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  }

  /** The binary still holds A, answers `--version` as A, and nothing was left beside it. */
  async function expectUntouched(binary: string, base: string): Promise<void> {
    expect(await sha256(binary)).toBe(sha.a);
    expect((await modgate(binary, base, ['--version'])).stdout).toMatch(new RegExp(`^modgate ${versionA}\n`));
    expect(await readdir(dirname(binary))).toEqual(['modgate']);
  }

  it(
    'reports the newest signed release with --check and changes nothing',
    async () => {
      const [binary, base] = [await install('a'), await mirror()];
      const result = await modgate(binary, base, ['self-update', '--check']);
      expect(result).toMatchObject({
        code: 0,
        stdout: `installed ${versionA}, newest ${versionB}: an update is available (modgate self-update)\n`,
      });
      await expectUntouched(binary, base);
    },
    UPDATE_MS,
  );

  it(
    'replaces itself with the newer binary by a rename, keeping the old one for --rollback',
    async () => {
      const [binary, base] = [await install('a'), await mirror()];
      const before = await stat(binary);
      const result = await modgate(binary, base, ['self-update']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(
        `Updated ${binary}: modgate ${versionA} → ${versionB} (the previous binary is ${binary}.previous; modgate self-update --rollback puts it back).\n` +
          // systemctl is installed but no systemd runs here: it says what to restart.
          'systemctl could not list the services: restart the running ones yourself, e.g.\n' +
          '  sudo systemctl restart modgate            # and each modgate@NAME\n',
      );
      expect((await modgate(binary, base, ['--version'])).stdout).toMatch(
        new RegExp(`^modgate ${versionB}\n`),
      );
      expect(await sha256(binary)).toBe(sha.b);
      const [after, previous] = [await stat(binary), await stat(`${binary}.previous`)];
      // A new file renamed into place; the old one, the same inode, kept under the second name.
      expect(after.ino).not.toBe(before.ino);
      expect(previous.ino).toBe(before.ino);
      expect(after.mode & 0o7777).toBe(0o755);
      expect((await readdir(dirname(binary))).sort()).toEqual(['modgate', 'modgate.previous']);
      expect(await modgate(binary, base, ['self-update'])).toMatchObject({
        code: 0,
        stdout: `${binary} is already modgate ${versionB}: nothing to do.\n`,
      });

      // B, now the installed binary, puts A back.
      const back = await modgate(binary, base, ['self-update', '--rollback']);
      expect(back.code, back.stderr).toBe(0);
      expect(back.stdout).toContain(`Rolled back: ${binary} is modgate ${versionA} again.\n`);
      await expectUntouched(binary, base);
    },
    3 * UPDATE_MS,
  );

  it(
    'refuses a downgrade unless --allow-downgrade is given',
    async () => {
      const [binary, base] = [await install('b'), await mirror()];
      const refused = await modgate(binary, base, ['self-update', '--to', versionA]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `${versionA} is older than the installed ${versionB}; pass --allow-downgrade to install it anyway`,
      );
      expect(await sha256(binary)).toBe(sha.b);
      const allowed = await modgate(binary, base, ['self-update', '--to', versionA, '--allow-downgrade']);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toContain(`modgate ${versionB} → ${versionA}`);
      expect((await modgate(binary, base, ['--version'])).stdout).toMatch(
        new RegExp(`^modgate ${versionA}\n`),
      );
    },
    2 * UPDATE_MS,
  );

  it(
    'restarts the running modgate units systemctl lists and names the one it could not',
    async () => {
      const [binary, base] = [await install('a'), await mirror()];
      // A systemctl that answers as systemd would with two instances running, and fails one restart.
      const bin = await mkdtemp(join(work, 'systemctl-'));
      await writeFile(
        join(bin, 'systemctl'),
        [
          '#!/bin/sh',
          `echo "$*" >> ${join(bin, 'calls')}`,
          'case "$1 $2" in',
          '  "list-units modgate*") printf "modgate.service loaded active running modgate\\nmodgate@eu-1.service loaded active running modgate eu-1\\n" ;;',
          '  "restart modgate@eu-1.service") exit 1 ;;',
          'esac',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      const result = await modgate(binary, base, ['self-update'], {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        'Restarted modgate.service.\n' +
          'Could not restart modgate@eu-1.service: sudo systemctl restart modgate@eu-1.service\n',
      );
      expect(await readFile(join(bin, 'calls'), 'utf8')).toBe(
        'list-units modgate* --type=service --state=running --plain --no-legend\n' +
          'restart modgate.service\n' +
          'restart modgate@eu-1.service\n',
      );
    },
    UPDATE_MS,
  );

  /** The refusal's `--json` code and what its message says. */
  const refusal: Record<Tampering, [string, RegExp]> = {
    'a changed artifact': ['checksum_mismatch', new RegExp(`^${ARTIFACT} does not match SHA256SUMS`)],
    'a changed SHA256SUMS': [
      'bad_signature',
      /fails its signature check: the signature does not match the file/,
    ],
    'a changed trusted comment': [
      'bad_signature',
      /fails its signature check: the trusted comment does not match its signature/,
    ],
    'a signature by another key': [
      'bad_signature',
      /fails its signature check: signed by key \w+, not the release key/,
    ],
  };

  it.each(TAMPERINGS)(
    'refuses %s, leaving the old binary in place and runnable',
    async (name) => {
      const [binary, base] = [await install('a'), await mirror()];
      await tamper(name, join(base, 'latest'), { dir: releases.b, version: versionB, other });
      const result = await modgate(binary, base, ['self-update', '--json']);
      expect(result.code).toBe(1);
      const { error } = JSON.parse(result.stderr) as { error: { code: string; message: string } };
      expect(error.code).toBe(refusal[name][0]);
      expect(error.message).toMatch(refusal[name][1]);
      expect(error.message).toMatch(/; nothing was changed$/);
      await expectUntouched(binary, base);
    },
    UPDATE_MS,
  );

  it(
    'trusts only its built-in key: MODGATE_RELEASE_PUBKEY naming another key changes nothing',
    async () => {
      const [binary, base] = [await install('a'), await mirror()];
      await tamper('a signature by another key', join(base, 'latest'), {
        dir: releases.b,
        version: versionB,
        other,
      });
      const result = await modgate(binary, base, ['self-update'], { MODGATE_RELEASE_PUBKEY: other.line });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error: the release in \S+ fails its signature check: signed by key \w+, not the release key/,
      );
      await expectUntouched(binary, base);
    },
    UPDATE_MS,
  );
});
