/**
 * Issue 12, item 3: the idempotency journal when the disk refuses writes, with `modgate serve` and
 * `modgate sim` as separate processes. The daemon runs under a file-size limit (`ulimit -f`, no
 * root needed): once the journal reaches it every append fails (EFBIG) as on a full disk, and the
 * last record is cut short mid-line. The game applies 40 keyed coin credits; each must be answered
 * with what happened (never 500), the fault must be loud (log, /healthz, doctor), and after a
 * restart on a healthy disk every one of the 40 must replay its first answer without a 41st
 * credit reaching the game.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../harness/cli.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { logLines, start, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

const CREDITS = 40;
/** Runs serve with a soft file-size limit of a few KB (512- or 1024-byte blocks, by shell). */
const DISK_NEARLY_FULL = ['sh', '-c', 'ulimit -S -f 8 && exec "$@"', 'sh'];

interface Answer {
  status: number;
  replayed: boolean;
  body: string;
}

describe('a keyed write when the journal cannot be written', () => {
  let data: TestDataDir;
  let key: string;
  let serve: ModgateProcess;
  let sim: ModgateProcess;
  let api: string;
  let mod: string;
  let player: string;

  const serveOn = async (wrap: string[] = []) => {
    const child = start(['serve', '--data-dir', data.dir, '--listen', api, '--mod-listen', mod], { wrap });
    // Both: the simulator may dial the mod listener before the API's is bound and logged.
    await eventually(
      () => ['"msg":"listening"', '"msg":"mod connected"'].every((line) => child.output().includes(line)),
      30_000,
    );
    return child;
  };
  const credit = async (i: number | null): Promise<Answer> => {
    const response = await fetch(`http://${api}/v1/players/${player}/coins`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(i === null ? {} : { 'idempotency-key': `credit-${i}` }),
      },
      body: JSON.stringify({ amount: 1, reason: `credit ${i ?? 'unkeyed'}` }),
    });
    const replayed = response.headers.get('idempotent-replayed') === 'true';
    return { status: response.status, replayed, body: await response.text() };
  };
  const balanceOf = (answer: Answer) => (JSON.parse(answer.body) as { balance: number }).balance;

  beforeAll(async () => {
    data = await makeDataDir();
    key = (await data.createKey('--name', 'shop')).key;
    api = `127.0.0.1:${await freePort()}`;
    mod = `127.0.0.1:${await freePort()}`;
    sim = start(['sim', '--data-dir', data.dir, '--connect', `ws://${mod}`, '--players', '20']);
    serve = await serveOn(DISK_NEARLY_FULL);
    const list = await fetch(`http://${api}/v1/players?limit=10`, {
      headers: { authorization: `Bearer ${key}` },
    });
    player = ((await list.json()) as { data: Array<{ platform_id: string }> }).data[0]!.platform_id;
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sim && stop(sim), serve && stop(serve)]);
    await data?.remove();
  });

  it('answers all 40 with their result, reports the fault, and replays every one after a restart', async () => {
    const first: Answer[] = [];
    for (let i = 0; i < CREDITS; i++) first.push(await credit(i));
    expect(first.map((answer) => answer.status)).toEqual(Array(CREDITS).fill(200));
    const balances = first.map(balanceOf);
    expect(balances.at(-1)! - balances[0]!).toBe(CREDITS - 1);

    // Loud: an error line per failed append, /healthz degraded, doctor failing.
    const errors = logLines(serve).filter((line) => line['level'] === 'error');
    expect(errors).toContainEqual(expect.objectContaining({ msg: 'idempotency.jsonl cannot be written' }));
    const health = (await (await fetch(`http://${api}/healthz`)).json()) as Record<string, unknown>;
    expect(health['status']).toBe('degraded');
    expect(health['storage_faults']).toContainEqual(expect.stringMatching(/^idempotency\.jsonl: /));
    const doctor = await run([
      'doctor',
      '--data-dir',
      data.dir,
      '--listen',
      api,
      '--mod-listen',
      mod,
      '--json',
    ]);
    const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ subject: string; level: string }> })
      .checks;
    expect(checks).toContainEqual(expect.objectContaining({ subject: 'storage', level: 'fail' }));

    // While it runs, a retry replays from memory.
    expect(await credit(CREDITS - 1)).toEqual({ ...first[CREDITS - 1], replayed: true });

    expect(await stop(serve)).toBe(0);
    expect(logLines(serve)).toContainEqual(
      expect.objectContaining({ level: 'error', msg: expect.stringContaining('lost at shutdown') }),
    );

    // A healthy disk: every retry answers what the first attempt answered, none credits again.
    serve = await serveOn();
    const retried: Answer[] = [];
    for (let i = 0; i < CREDITS; i++) retried.push(await credit(i));
    expect(retried.map((answer) => [answer.status, answer.body])).toEqual(
      first.map((answer) => [answer.status, answer.body]),
    );
    const fromJournal = retried.filter((answer) => answer.replayed).length;
    expect(fromJournal).toBeGreaterThan(0);
    expect(fromJournal).toBeLessThan(CREDITS);
    expect(balanceOf(await credit(null))).toBe(balances.at(-1)! + 1);
  }, 120_000);
});
