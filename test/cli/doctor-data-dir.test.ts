import { chmod, chown, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { doctor, freePort, pointModUrl, readyDataDir } from './doctor-support.ts';
import { runOk } from '../../harness/cli.ts';
import { FileEventLog } from '../../daemon/events/event-log.ts';
import { EVENTS_FOLDER, segmentName } from '../../daemon/events/segments.ts';
import { holdDaemonLock } from '../../daemon/store/daemon-lock.ts';

let dir: string;
let ports: { api: number; mod: number };

beforeAll(async () => {
  ports = { api: await freePort(), mod: await freePort() };
});

beforeEach(async () => {
  dir = await readyDataDir(ports.mod);
});

afterEach(async () => {
  await rm(dirname(dir), { recursive: true, force: true });
});

describe('modgate doctor: the data dir', () => {
  it('passes a ready data dir on free addresses with exit code 0', async () => {
    const result = await doctor(dir, ports, [], {});
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.line('data dir')).toMatch(/^ok +data dir +.*: mode 0700, owned by /);
    for (const subject of ['keys.json', 'state.json', 'identity', 'mod keys', 'api', 'plan', 'api keys'])
      expect(result.line(subject)).toMatch(/^ok /);
    expect(result.stdout).toMatch(/\n\d+ ok, 1 warning, 0 failures\n$/); // the daemon is not running
  });

  it('fails on a data dir that does not exist and names init', async () => {
    const missing = join(dirname(dir), 'nowhere');
    const result = await doctor(missing, ports);
    expect(result.code).toBe(1);
    expect(result.line('data dir')).toMatch(/^fail +data dir +.*nowhere does not exist$/);
    expect(result.fix('data dir')).toBe(`modgate init --data-dir ${missing}`);
    expect(result.stderr).toMatch(/^error: doctor found 1 problem to fix\n$/);
  });

  it('fails on a folder other users can enter', async () => {
    await chmod(dir, 0o755);
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('data dir')).toContain('accessible to other users (mode 0755)');
    expect(result.fix('data dir')).toBe(`chmod 700 ${dir}`);
  });

  it('fails on a file other users can read', async () => {
    await chmod(join(dir, 'keys.json'), 0o644);
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('keys.json')).toMatch(/^fail +keys\.json +accessible to other users \(mode 0644\)$/);
    expect(result.fix('keys.json')).toBe(`chmod 600 ${join(dir, 'keys.json')}`);
  });

  it('passes admin.sock when it is a socket of mode 0600 and fails it when other users may connect', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'admin.sock'), resolve));
    try {
      await chmod(join(dir, 'admin.sock'), 0o600);
      expect((await doctor(dir, ports)).line('admin.sock')).toMatch(/^ok +admin\.sock +mode 0600$/);
      await chmod(join(dir, 'admin.sock'), 0o666);
      const loose = await doctor(dir, ports);
      expect(loose.code).toBe(1);
      expect(loose.line('admin.sock')).toMatch(
        /^fail +admin\.sock +accessible to other users \(mode 0666\)$/,
      );
      expect(loose.fix('admin.sock')).toBe(`chmod 600 ${join(dir, 'admin.sock')}`);
    } finally {
      server.close();
    }
  });

  it('fails on a symbolic link in the data dir, even to a private file, and names rm', async () => {
    const outside = join(dirname(dir), 'elsewhere.jsonl');
    await writeFile(outside, '', { mode: 0o600 });
    // The set-up's admin writes were audited: the link takes the audit log's place.
    await rm(join(dir, 'audit.jsonl'), { force: true });
    await symlink(outside, join(dir, 'audit.jsonl'));
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('audit.jsonl')).toMatch(
      /^fail +audit\.jsonl +a symbolic link, and modgate follows no link/,
    );
    expect(result.fix('audit.jsonl')).toBe(`rm ${join(dir, 'audit.jsonl')}`);
  });

  it('fails on a folder in the data dir that others may write', async () => {
    await mkdir(join(dir, 'drop'));
    await chmod(join(dir, 'drop'), 0o777);
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('drop')).toMatch(/^fail +drop +writable by other users \(mode 0777\)$/);
    expect(result.fix('drop')).toBe(`chmod go-w ${join(dir, 'drop')}`);
  });

  it('fails on a missing file and names init', async () => {
    await rm(join(dir, 'state.json'));
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('state.json')).toMatch(/is missing$/);
    expect(result.fix('state.json')).toMatch(/^modgate init --data-dir /);
  });

  it('fails on a file that is not valid JSON', async () => {
    await writeFile(join(dir, 'state.json'), '{ "api_enabled": tru', { mode: 0o600 });
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('state.json')).toMatch(/^fail +state\.json +.*is not valid JSON/);
    expect(result.fix('state.json')).toBe('restore state.json from a backup (modgate docs data-dir)');
  });

  it.runIf(process.getuid?.() === 0)('fails on a file owned by another user than the folder', async () => {
    await chown(join(dir, 'keys.json'), 12345, 12345);
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('keys.json')).toMatch(
      /owned by uid 12345, but modgate runs as root and trusts only what belongs to that user or to root$/,
    );
    expect(result.fix('keys.json')).toBe(
      `chown root ${join(dir, 'keys.json')} (and find out who put it there)`,
    );
  });

  it('fails when no mod key is trusted', async () => {
    await writeFile(join(dir, 'mod-keys.json'), '{ "trusted": [] }', { mode: 0o600 });
    const result = await doctor(dir, ports);
    expect(result.code).toBe(1);
    expect(result.line('mod keys')).toMatch(/no mod public key is trusted/);
  });

  it("warns when the mod's url does not reach the mod-link port", async () => {
    await pointModUrl(dir, 8788);
    const result = await doctor(dir, ports);
    const expected = `mod-credentials.json says ws://127.0.0.1:8788, but the mod link listens on 127.0.0.1:${ports.mod}`;
    expect(result.line('mod url')).toMatch(/^warn +mod url +/);
    expect(result.line('mod url')).toContain(expected);
    expect(result.fix('mod url')).toMatch(/^set "url" in .*mod-credentials\.json/);
    expect(result.code).toBe(0);
  });

  it('warns, with exit code 0, about a disabled API, no premium and no key', async () => {
    const fresh = join(await mkdtemp(join(tmpdir(), 'modgate-doctor-')), 'data');
    await runOk(['init', '--data-dir', fresh]);
    const result = await doctor(fresh, ports);
    expect(result.code).toBe(0);
    expect(result.line('api')).toMatch(/^warn +api +disabled/);
    expect(result.fix('api')).toBe(`modgate api enable --data-dir ${fresh}`);
    expect(result.line('plan')).toMatch(/^warn +plan +premium off/);
    expect(result.line('api keys')).toMatch(/^warn +api keys +no active key/);
    await rm(dirname(fresh), { recursive: true, force: true });
  });

  it('warns about a plan that ends within 14 days', async () => {
    const soon = new Date(Date.now() + 5 * 86_400_000 + 3_600_000).toISOString();
    await runOk(['plan', 'set', '--data-dir', dir, '--premium', 'on', '--until', soon]);
    const result = await doctor(dir, ports);
    expect(result.line('plan')).toMatch(/^warn +plan +premium ends in 5 days/);
  });

  it('prints the checks as JSON with --json', async () => {
    await chmod(join(dir, 'keys.json'), 0o640);
    const result = await doctor(dir, ports, ['--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: { level: string; subject: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks).toContainEqual(expect.objectContaining({ level: 'fail', subject: 'keys.json' }));
  });
});

describe('modgate doctor: the daemon', () => {
  it('says when no daemon serves the data dir', async () => {
    const result = await doctor(dir, ports);
    expect(result.line('daemon')).toMatch(/^ok +daemon +none serves this data dir: commands write the files/);
  });

  it('says a running daemon serves it and that a hand edit needs modgate reload', async () => {
    const held = await holdDaemonLock(dir);
    try {
      const result = await doctor(dir, ports);
      expect(result.line('daemon')).toMatch(
        new RegExp(`^ok +daemon +process ${process.pid} serves this data dir: .*run \`modgate reload\``),
      );
    } finally {
      await held.release();
    }
  });

  it('warns about a daemon.lock left by a process that is gone, and says the next start replaces it', async () => {
    const gone = { pid: 2 ** 22 + 1, host: hostname(), token: 'x', boot: null, started: null };
    await writeFile(join(dir, 'daemon.lock'), JSON.stringify(gone), { mode: 0o600 });
    const result = await doctor(dir, ports);
    expect(result.line('daemon.lock')).toMatch(/^warn +daemon\.lock +left by process 4194305, which is gone/);
    expect(result.fix('daemon.lock')).toBe('nothing to do: the next modgate serve replaces it');
  });

  it('names the event ids lost to a damaged segment and the damaged copy it keeps', async () => {
    const eventLog = await FileEventLog.open(dir);
    for (let n = 0; n < 4; n += 1) await eventLog.append({ type: 'player.joined', data: { n } });
    await eventLog.close();
    const file = join(dir, EVENTS_FOLDER, segmentName(1));
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.splice(2, 1, 'half of an event', 'and the other half'); // event 2, split by a newline
    await writeFile(file, lines.join('\n'));
    await (await FileEventLog.open(dir)).close(); // start-up repairs it
    const result = await doctor(dir, ports);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^warn +event log +events-000000000001\.jsonl: event ids 2 were lost to damage \(1 id\)$/m,
    );
    expect(result.stdout).toMatch(
      /^warn +event log +damaged copies kept: events-000000000001\.jsonl\.corrupt-\d+$/m,
    );
  });
});
