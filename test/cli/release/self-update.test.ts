/**
 * `modgate self-update` in-process against file:// releases signed with a throwaway key
 * (MODGATE_RELEASE_PUBKEY, honoured from a checkout only). The installed "binary" is a script
 * answering `--version` (test/support/release-key.ts): what is checked is what self-update does
 * to the file, not what the file is. Every refusal leaves the binary's bytes as they were.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../cli/program.ts';
import { signSums } from '../../../scripts/release.ts';
import {
  fakeBinary,
  fakeRelease,
  minisignInstalled,
  makeKey,
  type TestKey,
} from '../../support/release-key.ts';

describe.runIf(minisignInstalled())('modgate self-update', () => {
  let work: string;
  let key: TestKey;
  let other: TestKey;
  let binary: string;
  let releases: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'modgate-self-update-'));
    key = await makeKey(join(work, 'keys'));
    other = await makeKey(join(work, 'keys'), 'other');
  });
  afterAll(async () => rm(work, { recursive: true, force: true }));

  beforeEach(async () => {
    const round = await mkdtemp(join(work, 'round-'));
    releases = join(round, 'releases');
    await fakeRelease(releases, '0.1.0', key);
    await fakeRelease(releases, '0.3.0', key, { latest: true });
    await mkdir(join(round, 'bin'));
    binary = join(round, 'bin', 'modgate');
    await writeFile(binary, fakeBinary('0.2.0'), { mode: 0o755 });
  });

  async function selfUpdate(args: string[], env: Record<string, string> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['self-update', '--binary', binary, ...args], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {
        ...process.env,
        MODGATE_BASE_URL: pathToFileURL(releases).href,
        MODGATE_RELEASE_PUBKEY: key.line,
        ...env,
      },
    });
    return { code, stdout, stderr };
  }

  it('reports the installed and the newest version with --check, changing nothing', async () => {
    const result = await selfUpdate(['--check']);
    expect(result).toMatchObject({
      code: 0,
      stdout: 'installed 0.2.0, newest 0.3.0: an update is available (modgate self-update)\n',
    });
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.2.0'));
  });

  it('replaces the binary with the newest release and --rollback puts the previous one back', async () => {
    const result = await selfUpdate([], { PATH: await systemctl('exit 1') });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('modgate 0.2.0 → 0.3.0');
    expect(result.stdout).toContain(
      'systemctl could not list the services: restart the running ones yourself',
    );
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.3.0'));
    expect(await readFile(`${binary}.previous`, 'utf8')).toBe(fakeBinary('0.2.0'));
    expect(await selfUpdate([])).toMatchObject({
      code: 0,
      stdout: `${binary} is already modgate 0.3.0: nothing to do.\n`,
    });

    const back = await selfUpdate(['--rollback']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('is modgate 0.2.0 again');
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.2.0'));
    expect(existsSync(`${binary}.previous`)).toBe(false);
  });

  /** A PATH whose systemctl runs `script` and logs its arguments to `<dir>/calls`. */
  async function systemctl(script: string): Promise<string> {
    const bin = await mkdtemp(join(work, 'systemctl-'));
    await writeFile(join(bin, 'systemctl'), `#!/bin/sh\necho "$*" >> ${join(bin, 'calls')}\n${script}\n`, {
      mode: 0o755,
    });
    return `${bin}:${process.env.PATH ?? ''}`;
  }

  it('restarts the running modgate units systemctl lists', async () => {
    const path = await systemctl(
      '[ "$1" = list-units ] && echo "modgate@eu-1.service loaded active running modgate eu-1"; exit 0',
    );
    const result = await selfUpdate([], { PATH: path });
    expect(result.stdout).toContain('Restarted modgate@eu-1.service.');
    expect(await readFile(join(path.split(':')[0] ?? '', 'calls'), 'utf8')).toContain(
      'restart modgate@eu-1.service\n',
    );
  });

  it('refuses a downgrade unless --allow-downgrade is given', async () => {
    const refused = await selfUpdate(['--to', '0.1.0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('0.1.0 is older than the installed 0.2.0; pass --allow-downgrade');
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.2.0'));
    expect(await selfUpdate(['--to', '0.1.0', '--allow-downgrade'])).toMatchObject({ code: 0 });
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.1.0'));
  });

  it('refuses an artifact whose sha256 is not the signed one, leaving the binary as it was', async () => {
    await writeFile(
      join(releases, 'latest', `modgate-linux-${process.arch}`),
      fakeBinary('0.3.0') + '# tampered\n',
    );
    const result = await selfUpdate(['--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'checksum_mismatch' } });
    expect(result.stderr).toContain('does not match SHA256SUMS');
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.2.0'));
    expect(existsSync(`${binary}.previous`)).toBe(false);
  });

  it('refuses a SHA256SUMS changed after signing', async () => {
    const sums = join(releases, 'latest', 'SHA256SUMS');
    await writeFile(
      sums,
      (await readFile(sums, 'utf8')).replace(/^[0-9a-f]/, (c) => (c === '0' ? '1' : '0')),
    );
    const result = await selfUpdate([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: the release in ${pathToFileURL(releases).href}/latest/ fails its signature check: ` +
        'the signature does not match the file; nothing was changed\n',
    );
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.2.0'));
  });

  it('refuses a release signed by another key', async () => {
    await signSums(join(releases, 'latest'), other.secret, '0.3.0');
    const result = await selfUpdate(['--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toMatchObject({
      error: {
        code: 'bad_signature',
        message: expect.stringMatching(
          /fails its signature check: signed by key \w+, not the release key/,
        ) as unknown,
      },
    });
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.2.0'));
  });

  it('says so when the release cannot be read, leaving the binary as it was', async () => {
    const result = await selfUpdate(['--to', '9.9.9', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toMatchObject({
      error: {
        code: 'release_unreadable',
        message: expect.stringContaining(
          `could not read the release in ${pathToFileURL(releases).href}/v9.9.9/`,
        ) as unknown,
      },
    });
    expect(await readFile(binary, 'utf8')).toBe(fakeBinary('0.2.0'));
  });

  it.runIf(existsSync('/usr/bin/dpkg'))(
    'refuses a binary a package owns and points to the package manager',
    async () => {
      let stderr = '';
      const code = await runCli(['self-update', '--binary', '/usr/bin/sha256sum'], {
        stdout: { write: () => true },
        stderr: { write: (text: string) => (stderr += text) },
        env: {
          ...process.env,
          MODGATE_BASE_URL: pathToFileURL(releases).href,
          MODGATE_RELEASE_PUBKEY: key.line,
        },
      });
      expect(code).toBe(2);
      expect(stderr).toContain('belongs to the deb package coreutils');
      expect(stderr).toContain('apt install --only-upgrade modgate');
    },
  );
});
