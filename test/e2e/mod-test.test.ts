/**
 * `modgate mod test` against `modgate sim`, both real processes (issue 28, "Proven"): the
 * simulator passes every case with the default seed, and every case its world answers with another
 * seed and size; with each `--fault` kind on one op it fails exactly that op's cases, with a
 * reason a mod author understands, and the run finishes (the fault runs take the cases that send
 * ops, `--only 'op.*,game.*'`: the link cases send none); `--json` has the documented shape and
 * `--junit` writes JUnit XML.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { start, startSim, stop } from '../../harness/processes.ts';
import { OPS } from '../../protocol/ops/index.ts';

interface JsonReport {
  cases: Array<{
    id: string;
    op: string | null;
    section: string;
    status: string;
    message: string;
    ms: number;
    needs: string[];
  }>;
  summary: { pass: number; fail: number; skip: number; not_run: number };
}

/** Every case that sends an op (the op cases and the game behaviours); link cases send none. */
const OP_CASES = ['--only', 'op.*,game.*'];
/**
 * Every case whose answers come from the simulated world (ops, game behaviours, the events it
 * makes, the `source` it records); the handshake, session, heartbeat, frame and link cases judge
 * the link alone, the same for any seed, and the default-seed run proves them.
 */
const WORLD_CASES = ['--only', 'op.*,game.*,events.*,source.*'];

let data: TestDataDir;
beforeAll(async () => {
  data = await makeDataDir();
});
afterAll(() => data.remove());

/** Runs `mod test --json` and a simulator with `simFlags` against it; returns the exit code and report. */
async function modTest(
  flags: string[],
  simFlags: string[],
): Promise<{ code: number | null; report: JsonReport }> {
  const port = await freePort();
  const harness = start([
    'mod',
    'test',
    '--data-dir',
    data.dir,
    '--listen',
    `127.0.0.1:${port}`,
    '--json',
    '--wait',
    '30s',
    ...flags,
  ]);
  const sim = startSim(data.dir, port, ['--log-level', 'error', ...simFlags]);
  try {
    const code = await harness.exited();
    return { code, report: JSON.parse(harness.stdoutText()) as JsonReport };
  } finally {
    await stop(sim);
  }
}

describe('modgate mod test against modgate sim', () => {
  it('passes the simulator with the default seed, every op covered, as JSON and JUnit', async () => {
    const junit = join(data.dir, 'mod-test.xml');
    const { code, report } = await modTest(['--junit', junit], []);
    expect(report.cases.filter((c) => c.status === 'fail')).toEqual([]);
    expect(code).toBe(0);
    for (const c of report.cases) {
      expect(Object.keys(c)).toEqual(['id', 'op', 'section', 'status', 'message', 'ms', 'needs']);
      expect(c.section).toMatch(/^§\d+(\.\d+)?$/);
    }
    const opsCalled = new Set(report.cases.filter((c) => c.id === `op.${c.op}`).map((c) => c.op));
    expect([...opsCalled].sort()).toEqual(Object.keys(OPS).sort());
    expect(report.summary).toEqual({
      pass: report.cases.length - report.summary.skip,
      fail: 0,
      skip: report.summary.skip,
      not_run: 0,
    });
    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain(`<testsuites name="modgate mod test" tests="${report.cases.length}" failures="0"`);
    expect(xml).toContain('<testcase classname="PROTOCOL §3.7" name="handshake.deadline"');
  }, 90_000);

  it('passes the simulator with another seed and world size', async () => {
    const { code, report } = await modTest(WORLD_CASES, ['--seed', '7', '--players', '60']);
    expect(report.cases.filter((c) => c.status === 'fail')).toEqual([]);
    expect(code).toBe(0);
  }, 90_000);

  const FAULTS: Array<[string, string, RegExp]> = [
    ['server.status', 'hang', /did not answer within its deadline \(\d+ ms\): the daemon would answer 504/],
    ['vehicles.types', 'garbage', /the mod sent bytes a daemon must reject \(bad_mac, close 4040/],
    ['containers.types', 'drop', /the mod closed the link \(1006\) instead of answering/],
    ['squads.summary', 'error:internal', /answered the error internal \(injected fault \(internal\)\)/],
    ['players.ips', 'delay:4000', /answered the error timeout/],
  ];

  it.each(FAULTS)(
    'fails exactly the cases of %s with --fault %s, and finishes',
    async (op, fault, reason) => {
      const { code, report } = await modTest(
        [...OP_CASES, '--op-deadline', '2s'],
        ['--fault', `${op}=${fault}`],
      );
      const failed = report.cases.filter((c) => c.status === 'fail');
      expect(code).toBe(1);
      expect(failed.map((c) => c.op)).toEqual(failed.map(() => op));
      expect(failed.map((c) => c.id)).toContain(`op.${op}`);
      expect(failed.find((c) => c.id === `op.${op}`)?.message).toMatch(reason);
      expect(report.cases.map((c) => c.id)).toContain('game.pack-delivery'); // the run went on to the end
    },
    90_000,
  );
});
