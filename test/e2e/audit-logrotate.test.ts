/**
 * The logrotate file `modgate service install` writes (printed by `service install --dry-run`),
 * run by the real logrotate against a running `modgate serve` while writes hit it: rotated twice,
 * so that delaycompress leaves audit.jsonl.1 plain and compresses audit.jsonl.2.gz, and every
 * write's request id is in exactly one of the three files.
 *
 * .ci/run installs logrotate and sets MODGATE_REQUIRE_LOGROTATE=1: then a missing logrotate fails
 * this file instead of leaving it out.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_FILE } from '../../daemon/log/audit-log.ts';
import { auditedWrite, requestIdsOf, writeConcurrently } from '../support/audit-load.ts';
import { runOk } from '../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../harness/data-dir.ts';
import { swap } from '../support/doc-text.ts';
import { installed, startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

const run = promisify(execFile);
const required = process.env['MODGATE_REQUIRE_LOGROTATE'] === '1';
const LOGROTATE = installed(['/usr/sbin/logrotate', 'logrotate'], ['--version']);
const SHIPPED = '/etc/logrotate.d/modgate';

/** The file as `service install` would write it, from its dry run. */
async function shippedLogrotate(): Promise<string> {
  const printed = await runOk(['service', 'install', '--dry-run']);
  const start = printed.indexOf(`# ----- ${SHIPPED}\n`);
  if (start === -1) throw new Error(`service install --dry-run prints no ${SHIPPED}`);
  const body = printed.slice(start + `# ----- ${SHIPPED}\n`.length);
  const end = body.indexOf('\n# ----- ');
  return end === -1 ? body : body.slice(0, end + 1);
}

describe.runIf(LOGROTATE !== undefined || required)('the shipped logrotate file, run by logrotate', () => {
  let root: string;
  let dir: string;
  let serve: ModgateProcess;
  let apiPort: number;
  let key: string;
  let config: string;

  beforeAll(async () => {
    if (LOGROTATE === undefined)
      throw new Error('MODGATE_REQUIRE_LOGROTATE=1 but logrotate is not installed');
    root = await mkdtemp(join(tmpdir(), 'modgate-logrotate-'));
    dir = await premiumDataDir(join(root, 'modgate'));
    await runOk(['api', 'enable', '--data-dir', dir]);
    key = (await createKey(dir, '--name', 'writer', '--scopes', 'all')).key;
    ({ serve, apiPort } = await startServe(dir));

    // Changed only where the test must: the data dir, the owner (this user, not `modgate`, in
    // `su` and `create`), and the postrotate command. The shipped file reloads the units through systemctl, whose
    // ExecReload is `kill -HUP $MAINPID`; here that is the same signal sent to the test's serve.
    const group = (await run('id', ['-gn'])).stdout.trim();
    const source = `service install's ${SHIPPED}`;
    let text = await shippedLogrotate();
    text = swap(text, '/var/lib/modgate/', `${dir}/`, source);
    text = swap(text, 'su modgate modgate', `su ${userInfo().username} ${group}`, source);
    text = swap(text, 'create 0600 modgate modgate', `create 0600 ${userInfo().username} ${group}`, source);
    text = swap(
      text,
      "systemctl try-reload-or-restart modgate.service 'modgate@*.service'",
      `kill -HUP ${serve.pid}`,
      source,
    );
    config = join(root, 'logrotate.conf');
    await writeFile(config, text, { mode: 0o644 });
  }, 60_000);

  afterAll(async () => {
    if (serve) await stop(serve);
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  /** One forced run (`weekly` is not due yet), with its own state file as root's cron has. */
  const logrotate = () => run(LOGROTATE!, ['-s', join(root, 'logrotate.state'), '-f', config]);

  it('rotates twice under concurrent writes and loses or repeats no line', async () => {
    const live = join(dir, AUDIT_FILE);
    let first: Promise<unknown> = Promise.resolve();
    // Eight writers in flight, 600 writes; logrotate runs after the 150th and the 400th.
    const ids = await writeConcurrently(auditedWrite(apiPort, key), 600, 8, {
      150: async () => {
        first = logrotate();
        await first;
      },
      400: async () => {
        await first;
        // The daemon has reopened audit.jsonl and written to it since the first run.
        await eventually(async () => (await stat(live)).size > 0);
        await logrotate();
      },
    });

    const files = {
      live: () => readFile(live, 'utf8'),
      one: () => readFile(`${live}.1`, 'utf8'),
      two: async () => gunzipSync(await readFile(`${live}.2.gz`)).toString('utf8'),
    };
    const all = async () => [
      ...requestIdsOf(await files.two()),
      ...requestIdsOf(await files.one()),
      ...requestIdsOf(await files.live()),
    ];
    // The last writes' lines may still be on their way to audit.jsonl.
    await eventually(async () => (await all()).length >= ids.length);
    for (const read of Object.values(files)) expect(requestIdsOf(await read()).length).toBeGreaterThan(0);
    expect((await all()).sort()).toEqual([...ids].sort());
    expect((await readdir(dir)).filter((name) => name.startsWith(AUDIT_FILE)).sort()).toEqual([
      AUDIT_FILE,
      `${AUDIT_FILE}.1`,
      `${AUDIT_FILE}.2.gz`,
    ]);
    expect((await stat(live)).mode & 0o777).toBe(0o600);
  }, 180_000);
});
