import { execFile, execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_UNIT_OPTIONS,
  renderEnvFile,
  renderSingleUnit,
  renderTemplateUnit,
  UNIT_MARKER,
} from '../../../cli/service/units.ts';

const run = promisify(execFile);

/** .ci/run installs systemd-analyze and sets this, so CI fails instead of skipping. */
const required = process.env['MODGATE_REQUIRE_SYSTEMD_ANALYZE'] === '1';
const analyze = hasSystemdAnalyze();

function hasSystemdAnalyze(): boolean {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function directives(unit: string): string[] {
  return unit.split('\n').filter((line) => /^[A-Za-z_]+=/.test(line));
}

const options = { ...DEFAULT_UNIT_OPTIONS, bin: '/usr/local/bin/modgate' };

describe('the unit files', () => {
  const single = renderSingleUnit(options);
  const template = renderTemplateUnit(options);

  it('hardens both units the same way', () => {
    const hardening = [
      'Type=notify',
      'NotifyAccess=all',
      'WatchdogSec=30s',
      'User=modgate',
      'ExecReload=/bin/kill -HUP $MAINPID',
      'Restart=on-failure',
      'StartLimitIntervalSec=300',
      'StartLimitBurst=5',
      'LimitNOFILE=65536',
      'NoNewPrivileges=yes',
      'CapabilityBoundingSet=',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
      'SystemCallFilter=@system-service',
      'SystemCallErrorNumber=EPERM',
      'StateDirectoryMode=0700',
      'UMask=0077',
    ];
    for (const unit of [single, template])
      expect(directives(unit)).toEqual(expect.arrayContaining(hardening));
  });

  it('runs as a static user and leaves W^X memory to V8', () => {
    for (const unit of [single, template]) {
      expect(unit).not.toMatch(/^DynamicUser=/m);
      expect(unit).not.toMatch(/^MemoryDenyWriteExecute=/m);
      expect(unit.startsWith(UNIT_MARKER)).toBe(true);
    }
  });

  it('keeps the single daemon in /var/lib/modgate and lets the config file choose its ports', () => {
    expect(directives(single)).toEqual(
      expect.arrayContaining([
        'ExecStart=/usr/local/bin/modgate serve $MODGATE_OPTIONS',
        'Environment=MODGATE_DATA_DIR=%S/modgate',
        'EnvironmentFile=-/etc/modgate/modgate.env',
        'StateDirectory=modgate',
      ]),
    );
  });

  it('gives each template instance its own data dir and the ports of its own env file', () => {
    expect(directives(template)).toEqual(
      expect.arrayContaining([
        'ExecStart=/usr/local/bin/modgate serve --listen ${MODGATE_LISTEN} --mod-listen ${MODGATE_MOD_LISTEN} $MODGATE_OPTIONS',
        'Environment=MODGATE_DATA_DIR=%S/modgate/%i',
        'EnvironmentFile=/etc/modgate/%i.env',
        'StateDirectory=modgate/%i',
        'SyslogIdentifier=modgate-%i',
      ]),
    );
  });

  it('writes an env file with every setting commented out unless addresses are given', () => {
    expect(directives(renderEnvFile())).toEqual([]);
    expect(directives(renderEnvFile({ listen: '127.0.0.1:8797', modListen: '127.0.0.1:8798' }))).toEqual([
      'MODGATE_LISTEN=127.0.0.1:8797',
      'MODGATE_MOD_LISTEN=127.0.0.1:8798',
    ]);
  });
});

describe.runIf(analyze || required)('systemd-analyze', () => {
  let dir: string;
  let bin: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-units-'));
    bin = join(dir, 'modgate');
    await writeFile(bin, '#!/bin/sh\n');
    await chmod(bin, 0o755);
    const units = { ...DEFAULT_UNIT_OPTIONS, bin };
    await writeFile(join(dir, 'modgate.service'), renderSingleUnit(units));
    await writeFile(join(dir, 'modgate@.service'), renderTemplateUnit(units));
    await writeFile(
      join(dir, 'broken.service'),
      renderSingleUnit(units).replace('ProtectSystem=strict', 'ProtectSystem=stricter'),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function verify(unit: string): Promise<string> {
    // verify exits 0 on unknown or invalid directives and only prints them: read its output.
    const { stdout, stderr } = await run('systemd-analyze', ['verify', join(dir, unit)], { cwd: dir });
    return `${stdout}${stderr}`;
  }

  it('verifies modgate.service without a complaint', async () => {
    expect(await verify('modgate.service')).toBe('');
  });

  it('verifies an instance of modgate@.service without a complaint', async () => {
    expect(await verify('modgate@eu-1.service')).toBe('');
  });

  it('complains about a broken directive, so a clean verify means something', async () => {
    expect(await verify('broken.service')).toMatch(/stricter/);
  });

  it('rates both units at an exposure of 2.0 or less', async () => {
    for (const unit of ['modgate.service', 'modgate@eu-1.service']) {
      const { stdout } = await run('systemd-analyze', ['security', '--offline=true', join(dir, unit)], {
        cwd: dir,
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
      const level = /Overall exposure level for \S+: (\d+\.\d)/.exec(stdout)?.[1];
      expect(Number(level)).toBeLessThanOrEqual(2.0);
    }
  });
});
