/**
 * The CLI has one code path (docs/admin.md, "The CLI and a running daemon"): a command sends the
 * same admin request to the running daemon's admin.sock or, with no daemon, to the admin pipeline
 * in its own process. So a read answers alike either way, a webhook starts at the event log's end
 * either way, an offline write is audited like the daemon's, and the in-process admin holds the
 * data dir's daemon lock while it runs, so a serve started meanwhile is refused.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOfflineAdmin } from '../../daemon/admin/offline-services.ts';
import { FileEventLog } from '../../daemon/events/event-log.ts';
import { readEndpoints } from '../../daemon/events/webhooks/endpoint-file.ts';
import { silentLogger } from '../../daemon/log/log.ts';
import { readDaemonLock } from '../../daemon/store/daemon-lock.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { run, runOk } from '../../harness/cli.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { launchServe, startServe, stop } from '../../harness/processes.ts';

/** Read commands whose `--json` answer depends only on the data dir's files. */
const READS = [
  ['keys', 'list'],
  ['plan', 'status'],
  ['api', 'status'],
  ['admin', 'tokens', 'list'],
  ['webhooks', 'list'],
] as const;

const STORED_EVENTS = 3;

let data: TestDataDir;

beforeAll(async () => {
  data = await makeDataDir();
  await data.createKey('--name', 'bot');
  await runOk(['admin', 'tokens', 'create', '--data-dir', data.dir, '--name', 'panel']);
  const events = await FileEventLog.open(data.dir);
  for (let n = 0; n < STORED_EVENTS; n += 1) await events.append({ type: 'player.joined', data: { n } });
  await events.close();
}, 60_000);

afterAll(async () => {
  await data.remove();
});

async function readsAsJson(): Promise<string[]> {
  const answers: string[] = [];
  for (const argv of READS) answers.push(await runOk([...argv, '--data-dir', data.dir, '--json']));
  return answers;
}

describe('a command offline and through a daemon', () => {
  it('answers every read the same, and starts a new webhook at the log end either way', async () => {
    const offline = await data.addWebhook('http://127.0.0.1:9/offline');
    const readsOffline = await readsAsJson();
    const { serve } = await startServe(data.dir);
    let throughDaemon;
    try {
      expect(await readsAsJson()).toEqual(readsOffline);
      throughDaemon = await data.addWebhook('http://127.0.0.1:9/daemon');
    } finally {
      await stop(serve);
    }
    const stored = await readEndpoints(data.dir);
    const startOf = (id: string) => stored.find((endpoint) => endpoint.id === id)?.startAfter;
    expect(startOf(offline.id)).toBe(STORED_EVENTS);
    expect(startOf(throughDaemon.id)).toBe(STORED_EVENTS);
  });

  it('audits an offline write with the local user, as the daemon audits one over admin.sock', async () => {
    await runOk(['api', 'disable', '--data-dir', data.dir]);
    const lines = (await readFile(join(data.dir, 'audit.jsonl'), 'utf8')).trim().split('\n');
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({
      actor: { kind: 'local', uid: process.getuid?.() ?? 0 },
      method: 'PUT',
      route: '/admin/v1/api',
      status: 200,
      outcome: 'ok',
    });
    await runOk(['api', 'enable', '--data-dir', data.dir]);
  });
});

describe('the in-process admin', () => {
  it('holds the daemon lock while open, so a serve started meanwhile is refused, and lets go on close', async () => {
    const admin = await openOfflineAdmin(await DataDir.open(data.dir), { log: silentLogger, warn: () => {} });
    try {
      expect(await readDaemonLock(data.dir)).toMatchObject({ state: 'running', owner: { pid: process.pid } });
      const second = await launchServe(data.dir);
      expect(await second.serve.exited()).toBe(1);
      expect(second.serve.output()).toContain(`(process ${process.pid} on `);
    } finally {
      await admin.close();
    }
    expect(await readDaemonLock(data.dir)).toEqual({ state: 'none' });
  });

  it('answers 503 daemon_not_running for what only a running daemon has', async () => {
    const admin = await openOfflineAdmin(await DataDir.open(data.dir), { log: silentLogger, warn: () => {} });
    try {
      const response = await admin.handle({
        method: 'GET',
        url: '/admin/v1/status',
        headers: { host: 'localhost' },
        remoteAddress: '',
        hasBody: false,
        readBody: () => Promise.resolve(Buffer.alloc(0)),
      });
      expect(response.status).toBe(503);
      expect(JSON.parse(String(response.body))).toMatchObject({ error: { code: 'daemon_not_running' } });
    } finally {
      await admin.close();
    }
  });
});

describe('a broken data file, with no daemon running', () => {
  let broken: TestDataDir;

  beforeAll(async () => {
    broken = await makeDataDir();
    await broken.createKey('--name', 'bot');
  }, 60_000);

  afterAll(async () => {
    await broken.remove();
  });

  /**
   * Writes text that is not JSON in place of one data file (mode 0600, as the trust check wants);
   * the returned function puts back what was there, or nothing.
   */
  async function breakFile(name: string): Promise<() => Promise<void>> {
    const path = join(broken.dir, name);
    const before = await readFile(path, 'utf8').catch(() => null);
    await writeFile(path, '{ not json', { mode: 0o600 });
    return () => (before === null ? rm(path) : writeFile(path, before, { mode: 0o600 }));
  }

  it('refuses only the commands that read it, naming it; the others run', async () => {
    const restore = await breakFile('webhooks.json');
    try {
      const list = await run(['webhooks', 'list', '--data-dir', broken.dir]);
      expect(list.code).toBe(1);
      expect(list.stderr).toContain('webhooks.json');
      // keys.json, state.json and admin-tokens.json are sound: these run as ever.
      const created = JSON.parse(
        await runOk([
          'keys',
          'create',
          '--data-dir',
          broken.dir,
          '--name',
          'second',
          '--scopes',
          'players:read',
          '--json',
        ]),
      ) as { id: string };
      await runOk(['keys', 'revoke', '--data-dir', broken.dir, created.id]);
      await runOk(['api', 'disable', '--data-dir', broken.dir]);
      await runOk(['admin', 'tokens', 'list', '--data-dir', broken.dir]);
    } finally {
      await restore();
    }
  });

  it('writes one part while another part is broken, and keeps the broken part refused', async () => {
    const restore = await breakFile('admin-tokens.json');
    try {
      await runOk(['api', 'enable', '--data-dir', broken.dir]);
      expect(JSON.parse(await runOk(['api', 'status', '--data-dir', broken.dir, '--json']))).toMatchObject({
        api_enabled: true,
      });
      const list = await run(['admin', 'tokens', 'list', '--data-dir', broken.dir]);
      expect(list.code).toBe(1);
      expect(list.stderr).toContain('admin-tokens.json');
    } finally {
      await restore();
    }
  });
});
