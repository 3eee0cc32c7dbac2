/**
 * The run's reports (docs/mod-testing.md, "Reading the output"): JUnit XML groups cases by
 * PROTOCOL.md section and escapes what a mod's own error text may hold; `--only` and `--skip`
 * select by case id or op name.
 */
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../mod-test/case.ts';
import { allCases, selectCases } from '../../mod-test/index.ts';
import { junitXml, summarize, summaryLine } from '../../mod-test/report.ts';

const cases: CaseResult[] = [
  {
    id: 'op.server.status',
    op: 'server.status',
    section: '§6.1',
    status: 'pass',
    message: '',
    ms: 12,
    needs: [],
  },
  {
    id: 'op.players.get',
    op: 'players.get',
    section: '§6.1',
    status: 'fail',
    message: 'said <b>"&\u0001\'</b>',
    ms: 3,
    needs: ['op.players.list'],
  },
  {
    id: 'heartbeat.mod-pings',
    op: null,
    section: '§5.1',
    status: 'skip',
    message: 'too short',
    ms: 0,
    needs: [],
  },
];

describe('the mod test report', () => {
  it('writes JUnit XML with one suite per section and escapes the messages', () => {
    const xml = junitXml({ cases, summary: summarize(cases) });
    expect(xml).toContain('<testsuites name="modgate mod test" tests="3" failures="1" skipped="1">');
    expect(xml).toContain('<testsuite name="PROTOCOL §6.1" tests="2" failures="1" skipped="0" time="0.015">');
    expect(xml).toContain(
      '<failure message="said &lt;b&gt;&quot;&amp;?&apos;&lt;/b&gt;">said &lt;b&gt;&quot;&amp;?&apos;&lt;/b&gt;</failure>',
    );
    expect(xml).toContain(
      '<testcase classname="PROTOCOL §5.1" name="heartbeat.mod-pings" time="0.000"><skipped message="too short"/>',
    );
  });

  it('says the verdict in the summary line', () => {
    expect(summaryLine(summarize(cases))).toBe('1 passed, 1 failed, 1 skipped: the mod fails 1 case(s)');
    expect(summaryLine(summarize(cases.slice(0, 1)))).toBe('1 passed, 0 failed, 0 skipped: the mod passes');
  });

  it('counts cases not run in the summary line and as skipped in JUnit', () => {
    const notRun: CaseResult = {
      ...cases[0]!,
      id: 'op.players.ips',
      status: 'not_run',
      message: 'not run, because op.players.get failed',
      needs: ['op.players.get'],
    };
    const all = [...cases, notRun];
    expect(summaryLine(summarize(all))).toBe(
      '1 passed, 1 failed, 1 skipped, 1 not run: the mod fails 1 case(s)',
    );
    expect(junitXml({ cases: all, summary: summarize(all) })).toContain('failures="1" skipped="2">');
  });

  it('declares only needs that name a case run earlier', () => {
    const order = allCases().map((c) => c.id);
    for (const [index, c] of allCases().entries()) {
      for (const need of c.needs ?? []) {
        expect(order.indexOf(need), `${c.id} needs ${need}`).toBeGreaterThanOrEqual(0);
        expect(order.indexOf(need), `${c.id} needs ${need}`).toBeLessThan(index);
      }
    }
  });

  it('selects cases by id or op name, with * for any text', () => {
    const ids = (only: string[], skip: string[] = []) => selectCases(allCases(), only, skip).map((c) => c.id);
    expect(ids(['players.mute'])).toEqual([
      'op.players.mute',
      'op.players.mute.invalid',
      'game.mute-rounding',
      'game.mute-caps',
    ]);
    expect(ids(['handshake.*'], ['handshake.deadline'])).toEqual([
      'handshake.hello-auth',
      'handshake.wrong-daemon-key',
      'handshake.replayed-welcome',
      'handshake.unoffered-version',
    ]);
  });
});
