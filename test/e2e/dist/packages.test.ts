/**
 * The .deb and .rpm of scripts/packages.ts, with the distributions' own tools on this machine.
 * The x64 .deb is installed for real with dpkg (as root): files, modes, owners, the `modgate`
 * user and the data dir its maintainer scripts make, `modgate init` run in it as that user (the
 * data dir's trust rules accept it); then upgraded to a higher version (data and a changed
 * conffile kept), removed (data and user kept) and purged (both gone). systemd does not run
 * here, so the scripts' systemctl calls are skipped as in a container; that they tolerate it is
 * what is tested. The .rpm is read with `rpm -qp`, then installed, upgraded and erased with
 * `rpm --root` in a scratch root (test/support/packaging.ts) where its scriptlets really run:
 * the user, the data dir and its modes, the data kept, and systemctl skipped where systemd does
 * not run and tolerated where it fails. Both arm64 packages: their architecture and the aarch64
 * binary inside. Two builds give the same bytes.
 *
 * Which binaries: $MODGATE_BINARY and $MODGATE_BINARY_ARM64 when set (.ci/run builds both);
 * otherwise this file builds them. Without dpkg-deb and rpmbuild, root, or (for arm64) qemu it
 * says so and skips; .ci/run sets MODGATE_REQUIRE_PACKAGING=1, and then it fails instead.
 * The dpkg steps leave the machine as they found it: afterAll purges the package.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSingleUnit, renderTemplateUnit, DEFAULT_UNIT_OPTIONS } from '../../../cli/service/units.ts';
import { buildBinary } from '../../../scripts/build.ts';
import { canRun } from '../../../scripts/emulator.ts';
import type { Arch } from '../../../scripts/embedded-node.ts';
import { buildPackages, MAINTAINER, PACKAGE_BIN, type BuiltPackages } from '../../../scripts/packages.ts';
import { dpkg, makeRpmRoot, type RpmRoot } from '../../support/packaging.ts';

const run = promisify(execFile);
const version = (
  JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
/** Sorts after `version` for dpkg and rpm alike. */
const higher = `${version}.1`;
const EPOCH = 1_700_000_000;

const tools = existsSync('/usr/bin/dpkg-deb') && existsSync('/usr/bin/rpmbuild') && process.getuid?.() === 0;
const required = process.env['MODGATE_REQUIRE_PACKAGING'] === '1';
if (!tools && !required)
  console.error('test/e2e/dist/packages.test.ts: needs root, dpkg-deb and rpmbuild; skipped');
const arm64 = canRun('arm64') || required;

let work: string;
const built: Partial<Record<'x64' | 'x64Higher' | 'arm64', BuiltPackages>> = {};

async function binaryFor(arch: Arch, variable: string): Promise<string> {
  const given = process.env[variable];
  if (given) return resolve(given);
  return (await buildBinary({ arch, outDir: join(work, `bin-${arch}`) })).binary;
}

const sh = async (command: string, ...args: string[]) => (await run(command, args)).stdout.trim();
const mode = async (path: string) => ((await stat(path)).mode & 0o7777).toString(8);
const owner = (path: string) => sh('stat', '-c', '%U:%G', path);
const userExists = () =>
  run('getent', ['passwd', 'modgate']).then(
    () => true,
    () => false,
  );
const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe.runIf(tools || required)('the .deb and .rpm packages', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'modgate-packages-test-'));
    const x64 = await binaryFor('x64', 'MODGATE_BINARY');
    built.x64 = await buildPackages({
      arch: 'x64',
      binary: x64,
      outDir: join(work, 'x64'),
      sourceDateEpoch: EPOCH,
    });
    built.x64Higher = await buildPackages({
      arch: 'x64',
      binary: x64,
      outDir: join(work, 'x64-higher'),
      version: higher,
      sourceDateEpoch: EPOCH,
    });
    if (arm64) {
      const binary = await binaryFor('arm64', 'MODGATE_BINARY_ARM64');
      built.arm64 = await buildPackages({ arch: 'arm64', binary, outDir: join(work, 'arm64') });
    }
  }, 1_200_000);

  afterAll(async () => {
    await dpkg('--purge', 'modgate').catch(() => undefined);
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  }, 300_000);

  it('names the packages as a release does', () => {
    expect(built.x64).toEqual({
      deb: join(work, 'x64', `modgate_${version}_amd64.deb`),
      rpm: join(work, 'x64', `modgate-${version}-1.x86_64.rpm`),
    });
  });

  describe('the .deb installed with dpkg', () => {
    it('installs the binary, the units, the conffiles, the user and the data dir', async () => {
      // Never over someone's real install: this file purges what it installs.
      expect(await dpkg('-l')).not.toMatch(/^ii\s+modgate\s/m);
      expect(await userExists()).toBe(false);
      await dpkg('-i', built.x64!.deb);
      expect(await sh('dpkg-query', '-W', '-f=${Status} ${Version}', 'modgate')).toBe(
        `install ok installed ${version}`,
      );
      expect([await mode(PACKAGE_BIN), await owner(PACKAGE_BIN)]).toEqual(['755', 'root:root']);
      const units = { ...DEFAULT_UNIT_OPTIONS, bin: PACKAGE_BIN };
      expect(await readFile('/usr/lib/systemd/system/modgate.service', 'utf8')).toBe(renderSingleUnit(units));
      expect(await readFile('/usr/lib/systemd/system/modgate@.service', 'utf8')).toBe(
        renderTemplateUnit(units),
      );
      expect(await sh('dpkg-query', '-W', '-f=${Conffiles}', 'modgate')).toMatch(
        /^\/etc\/modgate\/modgate\.env [0-9a-f]{32}\n \/etc\/logrotate\.d\/modgate [0-9a-f]{32}$/,
      );
      expect(await readFile('/etc/logrotate.d/modgate', 'utf8')).toContain('su modgate modgate');
      expect(existsSync('/usr/share/doc/modgate/docs/data-dir.md')).toBe(true);
      expect(await sh('dpkg-query', '-W', '-f=${Maintainer}', 'modgate')).toBe(MAINTAINER);
      const copyright = await readFile('/usr/share/doc/modgate/copyright', 'utf8');
      expect(copyright).toMatch(
        /^Format: https:\/\/www\.debian\.org\/doc\/packaging-manuals\/copyright-format\/1\.0\/\n/,
      );
      expect(copyright).toContain(`\nUpstream-Contact: ${MAINTAINER}\n`);
      expect(copyright).toMatch(
        /\nFiles: \*\nCopyright: .+\nLicense: LicenseRef-modgate\n\nLicense: LicenseRef-modgate\n .+/,
      );
      const [, , uid, , , home, shell] = (await sh('getent', 'passwd', 'modgate')).split(':');
      expect([home, shell]).toEqual(['/var/lib/modgate', '/usr/sbin/nologin']);
      expect(Number(uid)).toBeLessThan(1000);
      expect([await mode('/var/lib/modgate'), await owner('/var/lib/modgate')]).toEqual([
        '700',
        'modgate:modgate',
      ]);
    }, 300_000);

    it('runs modgate init in the data dir as the modgate user', async () => {
      const asModgate = ['-u', 'modgate', '--', PACKAGE_BIN];
      await run('runuser', [...asModgate, 'init', '--data-dir', '/var/lib/modgate', '--name', 'Packaged']);
      // The CLI refuses a data dir whose files the daemon's user could not trust (docs/data-dir.md).
      await run('runuser', [...asModgate, 'keys', 'list', '--data-dir', '/var/lib/modgate']);
      expect(await owner('/var/lib/modgate/identity.json')).toBe('modgate:modgate');
    }, 120_000);

    it('upgrades to a higher version, keeping the data and the changed env file', async () => {
      const identity = await readFile('/var/lib/modgate/identity.json', 'utf8');
      const env = `${await readFile('/etc/modgate/modgate.env', 'utf8')}MODGATE_OPTIONS=--log-level debug\n`;
      await writeFile('/etc/modgate/modgate.env', env);
      await dpkg('-i', built.x64Higher!.deb);
      expect(await sh('dpkg-query', '-W', '-f=${Version}', 'modgate')).toBe(higher);
      expect(await readFile('/var/lib/modgate/identity.json', 'utf8')).toBe(identity);
      expect(await readFile('/etc/modgate/modgate.env', 'utf8')).toBe(env);
      expect([await mode('/var/lib/modgate'), await owner('/var/lib/modgate')]).toEqual([
        '700',
        'modgate:modgate',
      ]);
    }, 300_000);

    it('calls systemctl where systemd runs: try-restart on upgrade only, stop on remove, failures tolerated', async () => {
      // The installed maintainer scripts, run where /run/systemd/system exists (a tmpfs on /run in
      // a mount namespace of their own, so this machine's /run is untouched) with a systemctl
      // that records its arguments and fails.
      const shim = join(work, 'systemctl-shim');
      await mkdir(shim, { recursive: true });
      await writeFile(join(shim, 'systemctl'), `#!/bin/sh\necho "$*" >> ${shim}/calls\nexit 1\n`, {
        mode: 0o755,
      });
      const script = async (name: string, ...args: string[]) => {
        await rm(join(shim, 'calls'), { force: true });
        const path = `/var/lib/dpkg/info/modgate.${name}`;
        const inner = `mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && PATH=${shim}:$PATH sh ${path} "$@"`;
        await run('unshare', ['-m', 'sh', '-c', inner, 'sh', ...args]);
        return readFile(join(shim, 'calls'), 'utf8');
      };
      expect(await script('postinst', 'configure')).toBe('daemon-reload\n');
      expect(await script('postinst', 'configure', version)).toBe(
        'daemon-reload\ntry-restart modgate.service modgate@*.service\n',
      );
      expect(await script('prerm', 'remove')).toBe('stop modgate.service modgate@*.service\n');
    }, 60_000);

    it('removes the package but keeps the data, the user and the conffiles', async () => {
      await dpkg('-r', 'modgate');
      expect(existsSync(PACKAGE_BIN)).toBe(false);
      expect(existsSync('/usr/lib/systemd/system/modgate.service')).toBe(false);
      expect(existsSync('/var/lib/modgate/identity.json')).toBe(true);
      expect(existsSync('/etc/modgate/modgate.env')).toBe(true);
      expect(await userExists()).toBe(true);
      expect(await sh('dpkg-query', '-W', '-f=${Status}', 'modgate')).toBe('deinstall ok config-files');
    }, 300_000);

    it('purges the data dir, the conffiles and the user', async () => {
      await dpkg('--purge', 'modgate');
      expect(existsSync('/var/lib/modgate')).toBe(false);
      expect(existsSync('/etc/modgate/modgate.env')).toBe(false);
      expect(existsSync('/etc/logrotate.d/modgate')).toBe(false);
      expect(await userExists()).toBe(false);
    }, 300_000);
  });

  describe('the .rpm read with rpm', () => {
    it('lists the files, the config files and the data dir with its owner and mode', async () => {
      const rpm = built.x64!.rpm;
      const format = '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]';
      const files = await sh('rpm', '-qp', '--qf', format, rpm);
      expect(files).toContain('-rwxr-xr-x root:root /usr/bin/modgate');
      expect(files).toContain('-rw-r--r-- root:root /usr/lib/systemd/system/modgate@.service');
      expect(files).toContain('drwx------ modgate:modgate /var/lib/modgate');
      expect(await sh('rpm', '-qpc', rpm)).toBe('/etc/logrotate.d/modgate\n/etc/modgate/modgate.env');
      expect(await sh('rpm', '-qp', '--qf', '%{VERSION}-%{RELEASE} %{ARCH}', rpm)).toBe(
        `${version}-1 x86_64`,
      );
      expect(await sh('rpm', '-qp', '--qf', '%{PACKAGER}|%{LICENSE}', rpm)).toBe(
        `${MAINTAINER}|LicenseRef-modgate`,
      );
    });

    it('carries scripts that create the user, stop on removal and try-restart on upgrade', async () => {
      const scripts = await sh('rpm', '-qp', '--scripts', built.x64!.rpm);
      expect(scripts).toMatch(
        /preinstall scriptlet[^]*useradd --system --user-group --home-dir \/var\/lib\/modgate/,
      );
      expect(scripts).toMatch(/preuninstall scriptlet[^]*\$1" -eq 0[^]*systemctl stop modgate\.service/);
      expect(scripts).toMatch(
        /postuninstall scriptlet[^]*\$1" -ge 1[^]*systemctl try-restart modgate\.service/,
      );
    });
  });

  describe('the .rpm installed, upgraded and erased in a scratch root, its scriptlets run', () => {
    let root: RpmRoot;
    const rpm = (...args: string[]) => root.run('rpm', ['--root', root.dir, ...args]);
    const calls = async () => {
      const path = join(root.dir, 'systemctl-calls');
      const text = existsSync(path) ? await readFile(path, 'utf8') : '';
      await rm(path, { force: true });
      return text;
    };

    beforeAll(async () => {
      root = await makeRpmRoot(await mkdtemp(join(work, 'rpm-root-')), built.x64!.rpm);
    }, 120_000);

    it('installs the files, the user and the data dir, with systemd absent', async () => {
      await root.fakeSystemd(false);
      const installed = await rpm('-U', built.x64!.rpm);
      expect(installed.code, installed.stderr).toBe(0);
      expect(await root.chroot('stat', '-c', '%a %U:%G', '/usr/bin/modgate', '/var/lib/modgate')).toBe(
        '755 root:root\n700 modgate:modgate',
      );
      expect(`${await root.chroot('cat', '/usr/lib/systemd/system/modgate.service')}\n`).toBe(
        renderSingleUnit({ ...DEFAULT_UNIT_OPTIONS, bin: PACKAGE_BIN }),
      );
      const [, , uid, , , home, shell] = (await root.chroot('getent', 'passwd', 'modgate')).split(':');
      expect([home, shell]).toEqual(['/var/lib/modgate', '/usr/sbin/nologin']);
      expect(Number(uid)).toBeLessThan(1000);
      expect((await rpm('-q', 'modgate')).stdout.trim()).toBe(`modgate-${version}-1.x86_64`);
      expect(await root.chroot('/usr/bin/modgate', '--version')).toMatch(new RegExp(`^modgate ${version}\n`));
      expect(await calls()).toBe('');
    }, 300_000);

    it('upgrades keeping the data and the user, and try-restarts where systemctl fails', async () => {
      await root.chroot(
        'install',
        '-m',
        '0600',
        '-o',
        'modgate',
        '-g',
        'modgate',
        '/dev/null',
        '/var/lib/modgate/kept',
      );
      const user = await root.chroot('getent', 'passwd', 'modgate');
      await root.fakeSystemd(true);
      const upgraded = await rpm('-U', built.x64Higher!.rpm);
      expect(upgraded.code, upgraded.stderr).toBe(0);
      expect((await rpm('-q', 'modgate')).stdout.trim()).toBe(`modgate-${higher}-1.x86_64`);
      // %post of the new package, then %postun of the old one with $1 = 1: an upgrade.
      expect(await calls()).toBe(
        'daemon-reload\ndaemon-reload\ntry-restart modgate.service modgate@*.service\n',
      );
      expect(await root.chroot('getent', 'passwd', 'modgate')).toBe(user);
      expect(await root.chroot('stat', '-c', '%a %U:%G', '/var/lib/modgate', '/var/lib/modgate/kept')).toBe(
        '700 modgate:modgate\n600 modgate:modgate',
      );
    }, 300_000);

    it('erases the package, stopping the units and keeping the data and the user', async () => {
      const erased = await rpm('-e', 'modgate');
      expect(erased.code, erased.stderr).toBe(0);
      expect(await calls()).toBe('stop modgate.service modgate@*.service\ndaemon-reload\n');
      expect((await rpm('-q', 'modgate')).code).not.toBe(0);
      expect((await root.run('test', ['-e', join(root.dir, 'usr/bin/modgate')])).code).not.toBe(0);
      expect(await root.chroot('stat', '-c', '%a %U:%G', '/var/lib/modgate/kept')).toBe(
        '600 modgate:modgate',
      );
      expect(await root.chroot('getent', 'passwd', 'modgate')).toMatch(/^modgate:/);
    }, 300_000);
  });

  describe.runIf(arm64)('the arm64 packages', () => {
    it('say arm64 and aarch64 and carry an aarch64 binary', async () => {
      const { deb, rpm } = built.arm64!;
      expect(await sh('dpkg-deb', '-f', deb, 'Architecture')).toBe('arm64');
      expect(await sh('rpm', '-qp', '--qf', '%{ARCH}', rpm)).toBe('aarch64');
      const fromDeb = join(work, 'arm64-deb');
      await run('dpkg-deb', ['-x', deb, fromDeb]);
      expect(await sh('file', '-b', join(fromDeb, 'usr/bin/modgate'))).toMatch(
        /^ELF 64-bit LSB .*ARM aarch64/,
      );
      const root = join(work, 'rpm-root-arm64');
      await mkdir(root);
      await run('rpm', ['--root', root, '--initdb']);
      await run('rpm', ['--root', root, '-i', '--nodeps', '--noscripts', '--ignorearch', rpm]);
      expect(await sh('file', '-b', join(root, 'usr/bin/modgate'))).toMatch(/^ELF 64-bit LSB .*ARM aarch64/);
    }, 120_000);
  });

  it('refuses a binary of the other architecture', async () => {
    const binary = process.env['MODGATE_BINARY'] ?? join(work, 'bin-x64', 'modgate');
    await expect(buildPackages({ arch: 'arm64', binary, outDir: join(work, 'wrong') })).rejects.toThrow(
      /is not a linux-arm64 executable/,
    );
  });

  it('is reproducible: the same binary and SOURCE_DATE_EPOCH give the same packages', async () => {
    const x64 = built.x64!;
    const binary = process.env['MODGATE_BINARY'] ?? join(work, 'bin-x64', 'modgate');
    const rebuilt = await buildPackages({
      arch: 'x64',
      binary,
      outDir: join(work, 'again'),
      sourceDateEpoch: EPOCH,
    });
    expect(await sha256(rebuilt.deb)).toBe(await sha256(x64.deb));
    expect(await sha256(rebuilt.rpm)).toBe(await sha256(x64.rpm));
  }, 600_000);
});
