/**
 * Issue 24, item 7a: the event log and the audit log when the disk refuses writes, then frees up,
 * with `modgate serve` as its own process. The daemon runs under a soft file-size limit
 * (`prlimit --fsize`, no root needed): once the event segment reaches it every append fails
 * (EFBIG) as on a full disk, and the audit log, already at the limit, fails every line. Then
 * the test raises the limit of the running daemon (`prlimit --pid`), as freeing space would. The
 * event log must resume by itself and say how many events it lost, the mod's events must all
 * end up stored once (the link is closed on the failure, so the mod resends them), and the audit
 * log must say how many lines it could not write.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../../daemon/store/mod-credentials.ts';
import { startModBridge, type ModBridge } from '../../bridge/bridge.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { commandData } from '../support/game-events.ts';
import { freePort } from '../../harness/ports.ts';
import { logLines, startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

const LIMIT = 64 * 1024;
const EVENTS = 60;

describe('the event log and the audit log when the disk is full, then frees up', () => {
  let data: TestDataDir;
  let key: string;
  let serve: ModgateProcess;
  let bridge: ModBridge;
  let api: string;
  let metricsAt: string;

  const health = async () => (await (await fetch(`http://${api}/healthz`)).json()) as Record<string, unknown>;
  const metric = async (name: string, labels = '') => {
    const text = await (await fetch(`http://${metricsAt}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
    return Number(line?.split(' ')[1] ?? Number.NaN);
  };
  const auditedWrite = () =>
    fetch(`http://${api}/v1/webhooks/wh_nope`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
  const lines = (msg: string) => logLines(serve).filter((line) => line['msg'] === msg);

  beforeAll(async () => {
    data = await makeDataDir();
    key = (await data.createKey('--name', 'ops')).key;
    // The audit log is already at the limit: every line appended fails until it is raised.
    const pad = 'x'.repeat(LIMIT - 12);
    await writeFile(join(data.dir, 'audit.jsonl'), `{"pad":"${pad}"}\n`, { mode: 0o600 });
    metricsAt = `127.0.0.1:${await freePort()}`;
    const wrap = ['prlimit', `--fsize=${LIMIT}:unlimited`, '--'];
    const served = await startServe(data.dir, { extra: ['--metrics-listen', metricsAt], wrap });
    serve = served.serve;
    api = `127.0.0.1:${served.apiPort}`;
    const modLink = `127.0.0.1:${served.modPort}`;
    const credentials = await (await DataDir.open(data.dir)).read(modCredentialsFile);
    bridge = startModBridge({
      url: `ws://${modLink}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      modVersion: '2.1.0',
      handlers: {},
    });
  }, 60_000);

  afterAll(async () => {
    await bridge?.close();
    if (serve) await stop(serve);
    await data?.remove();
  });

  it('holds the events it cannot write, retries by itself once space returns, and says what the audit log lost', async () => {
    // Full: 60 events of 2 KB pass the 64 KiB the segment may grow to.
    for (let n = 0; n < EVENTS; n += 1)
      bridge.events.emit('command.executed', commandData(`#Say ${n}`, 'p'.repeat(2_000)));
    await eventually(
      () => lines('event log: append failed; the events wait in memory and the write is retried').length > 0,
      30_000,
    );
    expect((await auditedWrite()).status).toBeLessThan(500);
    await eventually(() => lines('audit.jsonl cannot be written').length > 0);
    const faults = (await health())['storage_faults'] as string[];
    expect(faults).toContainEqual(expect.stringMatching(/^events: /));
    expect(faults).toContainEqual(expect.stringMatching(/^audit\.jsonl: /));
    expect(bridge.events.pending).toBeGreaterThan(0);
    expect(await metric('modgate_write_failures_total', 'store="audit"')).toBeGreaterThan(0);

    // Space returns: the running daemon may write files of any size again.
    execFileSync('prlimit', ['--pid', String(serve.pid), '--fsize=unlimited:unlimited']);

    await eventually(() => bridge.events.pending === 0, 60_000);
    // Held in memory and written on a retry: late, none lost.
    const resumed = lines('event log: appends resumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]?.['events_lost']).toBe(0);
    expect(await metric('modgate_event_log_events_lost_total')).toBe(0);
    expect((await health())['storage_faults']).not.toContainEqual(expect.stringMatching(/^events: /));

    // Every event of the mod is stored exactly once, in order.
    const page = await fetch(`http://${api}/v1/events?after=0&types=command.executed&limit=1000`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(page.status).toBe(200);
    const commands = ((await page.json()) as { data: Array<{ data: { command: string } }> }).data.map(
      (event) => event.data.command,
    );
    expect(commands).toEqual([...Array(EVENTS).keys()].map((n) => `#Say ${n}`));

    // The audit log says, once it is written again, how many lines it could not write.
    expect((await auditedWrite()).status).toBeLessThan(500);
    await eventually(() => lines('audit.jsonl is written again').length > 0);
    expect(lines('audit.jsonl is written again')[0]?.['lines_lost']).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
