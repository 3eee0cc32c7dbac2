/**
 * How a run is reported: the summary, the table a mod author reads at a terminal, the `--json`
 * document (`{cases: [{id, op, section, status, message, ms, needs}], summary: {pass, fail, skip,
 * not_run}}`) and JUnit XML for CI, one test case per conformance case, grouped by section; a case
 * not run is a skipped test case there.
 */
import type { CaseResult } from './case.ts';

export interface Summary {
  pass: number;
  fail: number;
  skip: number;
  not_run: number;
}

export interface ModTestReport {
  cases: CaseResult[];
  summary: Summary;
}

export function summarize(cases: readonly CaseResult[]): Summary {
  const count = (status: CaseResult['status']) => cases.filter((c) => c.status === status).length;
  return { pass: count('pass'), fail: count('fail'), skip: count('skip'), not_run: count('not_run') };
}

const MARK = { pass: 'pass', fail: 'FAIL', skip: 'skip', not_run: '----' } as const;

/** One line per case as it finishes: `pass  §6.1  op.server.status  12 ms  note`. */
export function resultLine(result: CaseResult): string {
  const note = result.message ? `  ${result.message}` : '';
  return `${MARK[result.status]}  ${result.section.padEnd(5)}  ${result.id.padEnd(36)} ${String(result.ms).padStart(6)} ms${note}`;
}

export function summaryLine(summary: Summary): string {
  const verdict = summary.fail === 0 ? 'the mod passes' : `the mod fails ${summary.fail} case(s)`;
  const notRun = summary.not_run > 0 ? `, ${summary.not_run} not run` : '';
  return `${summary.pass} passed, ${summary.fail} failed, ${summary.skip} skipped${notRun}: ${verdict}`;
}

/**
 * The failures again, after the table, so the end of the output says what to fix; each with the
 * cases not run because of it.
 */
export function failureBlock(cases: readonly CaseResult[]): string[] {
  const failed = cases.filter((c) => c.status === 'fail');
  if (failed.length === 0) return [];
  const blocked = (id: string) =>
    cases.filter((c) => c.status === 'not_run' && c.message === `not run, because ${id} failed`);
  return [
    '',
    'Failures (PROTOCOL.md section, case, reason):',
    ...failed.flatMap((c) => {
      const after = blocked(c.id);
      const names = after.map((n) => n.id).join(', ');
      return [
        `  ${c.section} ${c.id}: ${c.message}`,
        ...(after.length ? [`    not run because of it: ${names}`] : []),
      ];
    }),
  ];
}

function xml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '?');
}

/** JUnit XML: one `testsuite` per PROTOCOL.md section, one `testcase` per case. */
export function junitXml(report: ModTestReport): string {
  const bySection = new Map<string, CaseResult[]>();
  for (const c of report.cases) bySection.set(c.section, [...(bySection.get(c.section) ?? []), c]);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="modgate mod test" tests="${report.cases.length}" failures="${report.summary.fail}" skipped="${report.summary.skip + report.summary.not_run}">`,
  ];
  for (const [section, cases] of bySection) {
    const failures = cases.filter((c) => c.status === 'fail').length;
    const skipped = cases.filter((c) => c.status === 'skip' || c.status === 'not_run').length;
    const seconds = cases.reduce((sum, c) => sum + c.ms, 0) / 1000;
    lines.push(
      `  <testsuite name="PROTOCOL ${xml(section)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" time="${seconds.toFixed(3)}">`,
    );
    for (const c of cases) {
      const open = `    <testcase classname="PROTOCOL ${xml(section)}" name="${xml(c.id)}" time="${(c.ms / 1000).toFixed(3)}"`;
      if (c.status === 'pass') lines.push(`${open}/>`);
      else if (c.status === 'skip' || c.status === 'not_run')
        lines.push(`${open}><skipped message="${xml(c.message)}"/></testcase>`);
      else lines.push(`${open}><failure message="${xml(c.message)}">${xml(c.message)}</failure></testcase>`);
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
