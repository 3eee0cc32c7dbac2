import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DATA_ROOT,
  describeStep,
  enabledInstances,
  executePlan,
  installPlan,
  systemHost,
  uninstallPlan,
  type Host,
  type InstallOptions,
} from '../../../cli/service/install.ts';
import { renderLogrotate } from '../../../cli/service/logrotate.ts';
import { DEFAULT_UNIT_OPTIONS, UNIT_MARKER } from '../../../cli/service/units.ts';
import { run } from '../../../harness/cli.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'modgate-install-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function options(overrides: Partial<InstallOptions> = {}): InstallOptions {
  return {
    ...DEFAULT_UNIT_OPTIONS,
    envDir: join(dir, 'etc-modgate'),
    unitDir: join(dir, 'units'),
    logrotateDir: join(dir, 'logrotate.d'),
    unitsOnly: false,
    systemdRunning: true,
    ...overrides,
  };
}

/** The real file system, with commands recorded instead of run. */
function fakeHost(users: string[] = [], failing: string[] = []): Host & { commands: string[] } {
  const real = systemHost();
  const commands: string[] = [];
  return {
    ...real,
    commands,
    userExists: async (name) => users.includes(name),
    run: async (argv) => {
      commands.push(argv.join(' '));
      if (failing.includes(argv[0] ?? '')) throw new Error(`${argv.join(' ')} failed: no such unit`);
    },
  };
}

describe('service install', () => {
  it('plans the user, the data dir, the env file, the logrotate file, both units and a daemon-reload, in that order', () => {
    expect(installPlan(options()).map(describeStep)).toEqual([
      `create system user modgate (home ${DATA_ROOT}, no login shell) unless it exists`,
      `create folder ${DATA_ROOT} (mode 0700, owner modgate)`,
      `create folder ${join(dir, 'etc-modgate')} (mode 0755)`,
      `write ${join(dir, 'etc-modgate', 'modgate.env')} unless it exists`,
      `create folder ${join(dir, 'logrotate.d')} (mode 0755)`,
      `write ${join(dir, 'logrotate.d', 'modgate')} unless it exists`,
      `create folder ${join(dir, 'units')} (mode 0755)`,
      `write ${join(dir, 'units', 'modgate.service')}`,
      `write ${join(dir, 'units', 'modgate@.service')}`,
      'run systemctl daemon-reload',
    ]);
  });

  it('plans only the unit files with --units-only', () => {
    expect(installPlan(options({ unitsOnly: true })).map((step) => step.kind)).toEqual([
      'mkdir',
      'write',
      'write',
    ]);
  });

  it('skips daemon-reload on a host that systemd does not run', () => {
    expect(installPlan(options({ systemdRunning: false })).some((step) => step.kind === 'run')).toBe(false);
  });

  it('creates a missing system user with no login shell and an owned data dir', async () => {
    const host = fakeHost();
    await executePlan(installPlan(options()), host);
    expect(host.commands).toEqual([
      `useradd --system --user-group --home-dir ${DATA_ROOT} --no-create-home --shell /usr/sbin/nologin --comment modgate daemon modgate`,
      `install -d -m 0700 -o modgate -g modgate ${DATA_ROOT}`,
      'systemctl daemon-reload',
    ]);
    const unit = await readFile(join(dir, 'units', 'modgate.service'), 'utf8');
    expect(unit.startsWith(UNIT_MARKER)).toBe(true);
    expect((await stat(join(dir, 'units', 'modgate@.service'))).mode & 0o777).toBe(0o644);
  });

  it('keeps an existing user and the operator env file, and rewrites the units', async () => {
    await mkdir(join(dir, 'etc-modgate'));
    await writeFile(join(dir, 'etc-modgate', 'modgate.env'), 'MODGATE_LISTEN=127.0.0.1:9000\n');
    await mkdir(join(dir, 'units'));
    await writeFile(join(dir, 'units', 'modgate.service'), 'old\n');
    const host = fakeHost(['modgate']);
    const done = await executePlan(installPlan(options()), host);
    expect(done).toContain('user modgate exists');
    expect(host.commands.some((command) => command.startsWith('useradd'))).toBe(false);
    expect(await readFile(join(dir, 'etc-modgate', 'modgate.env'), 'utf8')).toBe(
      'MODGATE_LISTEN=127.0.0.1:9000\n',
    );
    expect(await readFile(join(dir, 'units', 'modgate.service'), 'utf8')).toMatch(/^# Written by/);
  });

  it("writes the audit log's logrotate file for the daemon's user once, and keeps the operator's changes", async () => {
    await executePlan(installPlan(options({ user: 'gate' })), fakeHost(['gate']));
    const file = join(dir, 'logrotate.d', 'modgate');
    const written = await readFile(file, 'utf8');
    expect(written).toContain(`${DATA_ROOT}/audit.jsonl ${DATA_ROOT}/*/audit.jsonl {`);
    expect(written).toContain('create 0600 gate gate');
    expect(written).toContain('\n    su gate gate\n'); // logrotate acts in the data dir as its owner
    expect(written).not.toContain('copytruncate');
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    await writeFile(file, written.replace('rotate 12', 'rotate 52'));
    const done = await executePlan(installPlan(options({ user: 'gate' })), fakeHost(['gate']));
    expect(done).toContain(`kept ${file}`);
    expect(await readFile(file, 'utf8')).toContain('rotate 52');
  });

  it('writes the logrotate file docs/configuration.md shows, comments aside', async () => {
    const doc = await readFile(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const shown = /With logrotate:[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1];
    const written = renderLogrotate({ user: DEFAULT_UNIT_OPTIONS.user, dataRoot: DATA_ROOT });
    expect(written.replace(/^#.*\n/gm, '')).toBe(shown);
  });
});

describe('service uninstall', () => {
  beforeEach(async () => {
    await executePlan(installPlan(options({ unitsOnly: true })), fakeHost());
  });

  it('disables the single unit and every enabled instance, then removes the files', async () => {
    const wants = join(dir, 'units', 'multi-user.target.wants');
    await mkdir(wants);
    await symlink('../modgate@.service', join(wants, 'modgate@eu-1.service'));
    await symlink('../modgate@.service', join(wants, 'modgate@us-2.service'));
    const instances = await enabledInstances(join(dir, 'units'));
    expect(instances).toEqual(['eu-1', 'us-2']);
    const host = fakeHost();
    await executePlan(uninstallPlan({ unitDir: join(dir, 'units'), systemdRunning: true, instances }), host);
    expect(host.commands).toEqual([
      'systemctl disable --now modgate.service modgate@eu-1.service modgate@us-2.service',
      'systemctl stop modgate@*.service',
      'systemctl daemon-reload',
    ]);
    await expect(stat(join(dir, 'units', 'modgate.service'))).rejects.toThrow();
    await expect(stat(join(dir, 'units', 'modgate@.service'))).rejects.toThrow();
  });

  it('leaves a unit file that modgate did not write', async () => {
    await writeFile(join(dir, 'units', 'modgate.service'), '[Unit]\nDescription=hand-made\n');
    const done = await executePlan(
      uninstallPlan({ unitDir: join(dir, 'units'), systemdRunning: false, instances: [] }),
      fakeHost(),
    );
    expect(done[0]).toMatch(/^left .*modgate\.service: not written by modgate service install$/);
    expect(await readFile(join(dir, 'units', 'modgate.service'), 'utf8')).toContain('hand-made');
  });

  it('goes on when systemctl fails to stop a unit that is not loaded', async () => {
    const host = fakeHost([], ['systemctl']);
    const done = await executePlan(
      uninstallPlan({ unitDir: join(dir, 'units'), systemdRunning: true, instances: [] }).filter(
        (step) => step.kind !== 'run' || step.tolerant,
      ),
      host,
    );
    expect(done[0]).toMatch(/failed: no such unit \(going on\)$/);
    await expect(stat(join(dir, 'units', 'modgate.service'))).rejects.toThrow();
  });
});

describe('modgate service (CLI)', () => {
  it('prints the steps and both units with --dry-run and writes nothing', async () => {
    const units = join(dir, 'units');
    const result = await run(['service', 'install', '--dry-run', '--unit-dir', units, '--user', 'gate']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('# modgate service install --dry-run: nothing was changed.');
    expect(result.stdout).toContain(`# ----- ${join(units, 'modgate.service')}`);
    expect(result.stdout).toContain(`# ----- ${join(units, 'modgate@.service')}`);
    expect(result.stdout).toContain('User=gate');
    expect(result.stdout).toContain('ExecStart=/usr/local/bin/modgate serve $MODGATE_OPTIONS');
    await expect(stat(units)).rejects.toThrow();
  });

  it('writes just the two units with --units-only', async () => {
    const units = join(dir, 'units');
    const result = await run([
      'service',
      'install',
      '--units-only',
      '--unit-dir',
      units,
      '--bin',
      '/opt/mg/modgate',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(await readFile(join(units, 'modgate@.service'), 'utf8')).toContain(
      'ExecStart=/opt/mg/modgate serve',
    );
  });

  it('refuses a binary the hardened unit could not see', async () => {
    for (const bin of ['/home/ops/modgate', '/root/modgate', '/tmp/modgate']) {
      const result = await run(['service', 'install', '--dry-run', '--bin', bin]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /which the hardened unit cannot see; copy the binary to \/usr\/local\/bin\/modgate/,
      );
    }
    expect((await run(['service', 'install', '--dry-run', '--bin', 'modgate'])).stderr).toBe(
      'error: --bin must be an absolute path, not modgate\n',
    );
  });

  it('refuses root and names that are not system user names', async () => {
    for (const user of ['root', 'Mod Gate']) {
      expect((await run(['service', 'install', '--dry-run', '--user', user])).code).toBe(2);
    }
  });

  it('prints the uninstall steps with --dry-run', async () => {
    const result = await run(['service', 'uninstall', '--dry-run', '--unit-dir', join(dir, 'units')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `#   remove ${join(dir, 'units', 'modgate.service')} if modgate wrote it`,
    );
  });
});
