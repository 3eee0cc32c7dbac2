/**
 * A real `modgate serve` and the data dir it trusts nothing of (docs/data-dir.md, "What the data
 * dir trusts"): a link planted at audit.jsonl never redirects a write, before start or while it
 * runs; a data dir owned by another user, or with something in it others may write, is refused
 * with exit 2 and the fix; a fresh `init` under umask 000 gives files serve accepts, also after
 * serve itself has created its journals and logs.
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { AUDIT_FILE } from '../../daemon/log/audit-log.ts';
import { auditedWrite, requestIdsOf } from '../support/audit-load.ts';
import { runOk } from '../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../harness/data-dir.ts';
import { launchServe, startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

const NOBODY = 65534;
const OUTSIDE_TEXT = 'root:*:20000:0:99999:7:::\n';
const roots: string[] = [];
let serve: ModgateProcess | null = null;

afterEach(async () => {
  if (serve) await stop(serve);
  serve = null;
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'modgate-trust-'));
  roots.push(root);
  return root;
}

/** A data dir with the API on and a key, and a file outside it that must never change. */
async function writableSetup(): Promise<{ dir: string; key: string; outside: string }> {
  const root = await tempRoot();
  const dir = await premiumDataDir(join(root, 'data'));
  await runOk(['api', 'enable', '--data-dir', dir]);
  const { key } = await createKey(dir, '--scopes', 'all');
  const outside = join(root, 'shadow');
  await writeFile(outside, OUTSIDE_TEXT, { mode: 0o600 });
  return { dir, key, outside };
}

/**
 * `modgate serve` on `dir`, returned once one audited write reached audit.jsonl: the process,
 * the writer and that file's path.
 */
async function serveWithOneAuditLine(
  dir: string,
  key: string,
): Promise<{ running: ModgateProcess; write: () => Promise<string>; live: string }> {
  const served = await startServe(dir);
  serve = served.serve; // stopped by afterEach if the test does not get to stop it
  const write = auditedWrite(served.apiPort, key);
  const first = await write();
  const live = join(dir, AUDIT_FILE);
  await eventually(async () => requestIdsOf(await readFile(live, 'utf8')).includes(first));
  return { running: served.serve, write, live };
}

/**
 * SIGHUP once `live` was moved to `live.1` and something else planted in its place: serve logs
 * `refusal`, and three more writes all land in `live.1`, where it was writing.
 */
async function reopenAndKeepWriting(
  running: ModgateProcess,
  write: () => Promise<string>,
  live: string,
  refusal: string,
): Promise<void> {
  running.kill('SIGHUP');
  await eventually(() => running.output().includes(refusal));
  const later = [await write(), await write(), await write()];
  await eventually(async () => {
    const kept = requestIdsOf(await readFile(`${live}.1`, 'utf8'));
    return later.every((id) => kept.includes(id));
  });
}

/** `modgate serve` that must refuse to start: its exit code and stderr. */
async function serveRefuses(dir: string): Promise<{ code: number | null; stderr: string }> {
  const { serve: child } = await launchServe(dir);
  onTestFinished(async () => {
    await stop(child); // a serve that started after all
  });
  const code = await child.exited();
  return { code, stderr: child.stderrText() };
}

describe('modgate serve and a link planted at audit.jsonl', () => {
  it('refuses to start, exit 2, and never writes the file the link points at', async () => {
    const { dir, outside } = await writableSetup();
    await rm(join(dir, AUDIT_FILE)); // the set-up's own admin writes were audited there
    await symlink(outside, join(dir, AUDIT_FILE));
    const result = await serveRefuses(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, AUDIT_FILE)} is a symbolic link`);
    expect(result.stderr).toContain(`fix it with: rm ${join(dir, AUDIT_FILE)}`);
    expect(await readFile(outside, 'utf8')).toBe(OUTSIDE_TEXT);
  });

  it('keeps writing where it was when the link appears while it runs and SIGHUP asks it to reopen', async () => {
    const { dir, key, outside } = await writableSetup();
    const { running, write, live } = await serveWithOneAuditLine(dir, key);
    // What logrotate does, with the new file replaced by a link to a file the daemon must not touch.
    await rename(live, `${live}.1`);
    await symlink(outside, live);
    await reopenAndKeepWriting(running, write, live, 'symbolic link');
    expect(await readFile(outside, 'utf8')).toBe(OUTSIDE_TEXT);
  });
});

describe('modgate serve and a named pipe in the data dir', () => {
  const mkfifo = (path: string) => execFileSync('mkfifo', ['-m', '600', path]);

  it('refuses a pipe at keys.json with exit 2 and the fix, instead of hanging on it', async () => {
    const { dir } = await writableSetup();
    const keys = join(dir, 'keys.json');
    await rm(keys);
    mkfifo(keys);
    const result = await serveRefuses(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${keys} is a named pipe (FIFO), where modgate keeps a regular file`);
    expect(result.stderr).toContain(`fix it with: rm ${keys}`);
  });

  it('sends no audit line into a pipe planted at audit.jsonl while it runs, and keeps writing where it was', async () => {
    const { dir, key } = await writableSetup();
    const { running, write, live } = await serveWithOneAuditLine(dir, key);
    await rename(live, `${live}.1`);
    mkfifo(live);
    // A reader on the pipe, as an attacker would hold one: whatever reached it would be read here.
    const reader = await open(live, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      await reopenAndKeepWriting(running, write, live, 'named pipe');
      const leaked = Buffer.alloc(65_536);
      const { bytesRead } = await reader.read(leaked, 0, leaked.length, null).catch(() => ({ bytesRead: 0 }));
      expect(bytesRead).toBe(0);
    } finally {
      await reader.close();
    }
    expect(await stop(running)).toBe(0);
    serve = null;
  });
});

describe.runIf(process.getuid?.() === 0)('modgate serve and a data dir of another user', () => {
  it('refuses a data dir owned by another user with exit 2, naming the owner and the fix', async () => {
    const { dir } = await writableSetup();
    await chown(dir, NOBODY, NOBODY);
    const result = await serveRefuses(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${dir} is owned by nobody, but modgate runs as root`);
    expect(result.stderr).toContain('sudo -u nobody modgate');
  });

  it('refuses a file in it that another user owns with exit 2', async () => {
    const { dir } = await writableSetup();
    await chown(join(dir, 'keys.json'), NOBODY, NOBODY);
    const result = await serveRefuses(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, 'keys.json')} is owned by nobody`);
    expect(result.stderr).toContain(`fix it with: chown root ${join(dir, 'keys.json')}`);
  });
});

describe('modgate serve and a data dir others may write into', () => {
  it('refuses a folder in it that others may write, with exit 2 and the chmod', async () => {
    const { dir } = await writableSetup();
    await mkdir(join(dir, 'drop'));
    await chmod(join(dir, 'drop'), 0o777);
    const result = await serveRefuses(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`fix it with: chmod go-w ${join(dir, 'drop')}`);
  });
});

/** Runs modgate under umask 000, as a careless provisioning script might. */
const UMASK_000 = ['sh', '-c', 'umask 000 && exec "$0" "$@"'];

/**
 * The CLI in-process under umask 000, to its end: its output, or an error naming it. In-process
 * because the modes come from what the CLI asks of the kernel, which a process of its own would
 * ask the same way; only serve, below, needs to be one.
 */
async function runUnderUmask000(...args: string[]): Promise<string> {
  const previous = process.umask(0o000);
  try {
    return await runOk(args);
  } finally {
    process.umask(previous);
  }
}

/** Every entry under `dir` with its mode in octal, links reported as such. */
async function modesUnder(dir: string): Promise<Record<string, string>> {
  const modes: Record<string, string> = {};
  for (const name of await readdir(dir, { recursive: true })) {
    const info = await lstat(join(dir, name));
    modes[name] = info.isSymbolicLink() ? 'link' : (info.mode & 0o777).toString(8);
  }
  return modes;
}

describe('a data dir made under umask 000', () => {
  it('is private after init and after serve wrote its own files, and serve starts on it again', async () => {
    const dir = join(await tempRoot(), 'data');
    await runUnderUmask000('init', '--data-dir', dir);
    await runUnderUmask000('plan', 'set', '--data-dir', dir, '--premium', 'on');
    await runUnderUmask000('api', 'enable', '--data-dir', dir);
    const bot = ['--name', 'bot', '--scopes', 'all', '--json'];
    const created = await runUnderUmask000('keys', 'create', '--data-dir', dir, ...bot);
    const { key } = JSON.parse(created) as { key: string };
    for (const round of [1, 2]) {
      const served = await startServe(dir, { wrap: UMASK_000 });
      serve = served.serve;
      const apiPort = served.apiPort;
      const id = await auditedWrite(apiPort, key)();
      const audit = join(dir, AUDIT_FILE);
      await eventually(async () => requestIdsOf(await readFile(audit, 'utf8').catch(() => '')).includes(id));
      expect(await stop(serve), `serve, round ${round}`).toBe(0);
      serve = null;
    }
    const modes = await modesUnder(dir);
    expect(Object.keys(modes)).toEqual(expect.arrayContaining([AUDIT_FILE, 'idempotency.jsonl', 'events']));
    for (const [name, mode] of Object.entries(modes))
      expect(mode, name).toBe(name === 'events' ? '700' : '600');
    expect((await lstat(dir)).mode & 0o777).toBe(0o700);
  });
});
