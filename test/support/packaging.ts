/**
 * What the distribution tests need to install the packages for real: dpkg that waits for its lock
 * (this machine is shared), and a scratch root where the .rpm installs with its scriptlets run.
 *
 * The scratch root: `rpm --root` runs the scriptlets chrooted into it, so it needs a shell and the
 * tools they call (getent, useradd, install). It borrows this Debian machine's own /usr through
 * an overlay mounted in a mount namespace of its own, so what the package writes to /usr lands in
 * the root's upper folder and the machine's /usr is untouched; /etc (root alone in passwd and
 * group, login.defs for useradd), /var, /run and the rpm database are the root's own, /dev is
 * bound in. A debootstrap'd root would do the same at minutes of downloading per run. Debian's
 * packages are not in rpm's database, so a package with no files records that this root provides
 * what the .rpm requires (its libraries, /bin/sh, shadow-utils): rpm checks dependencies as on
 * a RHEL host, without --nodeps.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../../harness/stack.ts';

const run = promisify(execFile);

/**
 * dpkg, waiting while another dpkg or apt holds its lock (other tests and engineers share this
 * machine) rather than failing on it.
 */
export async function dpkg(...args: string[]): Promise<string> {
  let output = '';
  await eventually(async () => {
    try {
      output = (await run('dpkg', args)).stdout;
      return true;
    } catch (error) {
      const { stderr = '' } = error as { stderr?: string };
      if (/lock/.test(stderr)) return false;
      throw error;
    }
  }, 300_000);
  return output;
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RpmRoot {
  /** The root's folder: `rpm --root`'s and install.sh's MODGATE_PREFIX. */
  readonly dir: string;
  /** A command on this machine with the root's /usr and /dev mounted (the overlay's namespace). */
  run(command: string, args: readonly string[], env?: Readonly<Record<string, string>>): Promise<Result>;
  /** A command chrooted into the root, as the scriptlets run; throws if it fails. */
  chroot(command: string, ...args: string[]): Promise<string>;
  /**
   * Makes the root look as if systemd ran (/run/systemd/system) with a systemctl that records its
   * arguments in `/systemctl-calls` and fails, as a host where systemd is offline; or undoes it.
   */
  fakeSystemd(running: boolean): Promise<void>;
}

/** A scratch root in `dir` (made here) that provides what `rpmFile` requires. */
export async function makeRpmRoot(dir: string, rpmFile: string): Promise<RpmRoot> {
  const root = join(dir, 'root');
  const upper = join(dir, 'usr-upper');
  await Promise.all(
    ['usr', 'etc', 'dev', 'run', 'tmp', 'var/tmp', 'root'].map((path) =>
      mkdir(join(root, path), { recursive: true }),
    ),
  );
  await Promise.all([mkdir(upper), mkdir(join(dir, 'usr-work'))]);
  // Debian's merged /usr, as on this machine and on RHEL 7 and later.
  for (const link of ['bin', 'sbin', 'lib', 'lib64']) await symlink(`usr/${link}`, join(root, link));
  await copyFile('/etc/login.defs', join(root, 'etc/login.defs'));
  await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  await writeFile(join(root, 'etc/group'), 'root:x:0:\n');
  await writeFile(join(root, 'etc/shadow'), 'root:*:19000:0:99999:7:::\n', { mode: 0o640 });
  await writeFile(join(root, 'etc/gshadow'), 'root:*::\n', { mode: 0o640 });
  const inNamespace = [
    `mount -t overlay overlay -o lowerdir=/usr,upperdir=${upper},workdir=${join(dir, 'usr-work')} ${root}/usr`,
    `mount --bind /dev ${root}/dev`,
    'exec "$@"',
  ].join(' && ');
  const rpmRoot: RpmRoot = {
    dir: root,
    run: (command, args, env = {}) =>
      run('unshare', ['-m', 'sh', '-c', inNamespace, 'sh', command, ...args], {
        env: { PATH: process.env.PATH ?? '', ...env },
        maxBuffer: 16 * 1024 * 1024,
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      ),
    async chroot(command, ...args) {
      const result = await rpmRoot.run('chroot', [root, command, ...args]);
      if (result.code !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
      return result.stdout.trim();
    },
    async fakeSystemd(running) {
      const shim = join(upper, 'sbin/systemctl');
      if (!running) {
        await run('rm', ['-rf', join(root, 'run/systemd'), shim]);
        return;
      }
      await mkdir(join(root, 'run/systemd/system'), { recursive: true });
      await mkdir(join(upper, 'sbin'), { recursive: true });
      // /sbin comes first in the PATH rpm gives its scriptlets.
      await writeFile(shim, '#!/bin/sh\necho "$*" >> /systemctl-calls\nexit 1\n', { mode: 0o755 });
    },
  };
  await run('rpm', ['--root', root, '--initdb']);
  await run('rpm', ['--root', root, '-i', '--justdb', await providesPackage(dir, rpmFile)]);
  return rpmRoot;
}

/** A package of no files that provides what `rpmFile` requires, but rpm's own features. */
async function providesPackage(dir: string, rpmFile: string): Promise<string> {
  const { stdout } = await run('rpm', ['-qpR', rpmFile]);
  const provides = [...new Set(stdout.trim().split('\n'))].filter(
    (capability) => !/^(rpmlib|config)\(/.test(capability),
  );
  const top = join(dir, 'rpmbuild');
  const spec = join(dir, 'root-provides.spec');
  await writeFile(
    spec,
    [
      'Name: scratch-root-provides',
      'Version: 1',
      'Release: 1',
      'Summary: what the scratch root (this machine /usr) provides',
      'License: none',
      'BuildArch: noarch',
      ...provides.map((capability) => `Provides: ${capability}`),
      '%description',
      'What the scratch root provides.',
      '%files',
      '',
    ].join('\n'),
  );
  await run('rpmbuild', ['-bb', '--define', `_topdir ${top}`, '--define', `_rpmdir ${dir}`, spec]);
  return join(dir, 'noarch/scratch-root-provides-1-1.noarch.rpm');
}
