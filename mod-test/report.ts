/**
 * How a run is reported: the summary, the table a mod author reads at a terminal, the `--json`
 * document (`{cases: [{id, op, section, status, message, ms}], summary: {pass, fail, skip}}`) and
 * JUnit XML for CI, one test case per conformance case, grouped by section.
 */
import type { CaseResult } from './case.ts';

export interface Summary {
  pass: number;
  fail: number;
  skip: number;
}

export interface ModTestReport {
  cases: CaseResult[];
  summary: Summary;
}

export function summarize(cases: readonly CaseResult[]): Summary {
  const count = (status: CaseResult['status']) => cases.filter((c) => c.status === status).length;
  return { pass: count('pass'), fail: count('fail'), skip: count('skip') };
}

const MARK = { pass: 'pass', fail: 'FAIL', skip: 'skip' } as const;

/** One line per case as it finishes: `pass  §6.1  op.server.status  12 ms  note`. */
export function resultLine(result: CaseResult): string {
  const note = result.message ? `  ${result.message}` : '';
  return `${MARK[result.status]}  ${result.section.padEnd(5)}  ${result.id.padEnd(36)} ${String(result.ms).padStart(6)} ms${note}`;
}

export function summaryLine(summary: Summary): string {
  const verdict = summary.fail === 0 ? 'the mod passes' : `the mod fails ${summary.fail} case(s)`;
  return `${summary.pass} passed, ${summary.fail} failed, ${summary.skip} skipped: ${verdict}`;
}

/** The failures again, after the table, so the end of the output says what to fix. */
export function failureBlock(cases: readonly CaseResult[]): string[] {
  const failed = cases.filter((c) => c.status === 'fail');
  if (failed.length === 0) return [];
  return [
    '',
    'Failures (PROTOCOL.md section, case, reason):',
    ...failed.map((c) => `  ${c.section} ${c.id}: ${c.message}`),
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
    `<testsuites name="modgate mod test" tests="${report.cases.length}" failures="${report.summary.fail}" skipped="${report.summary.skip}">`,
  ];
  for (const [section, cases] of bySection) {
    const failures = cases.filter((c) => c.status === 'fail').length;
    const skipped = cases.filter((c) => c.status === 'skip').length;
    const seconds = cases.reduce((sum, c) => sum + c.ms, 0) / 1000;
    lines.push(
      `  <testsuite name="PROTOCOL ${xml(section)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" time="${seconds.toFixed(3)}">`,
    );
    for (const c of cases) {
      const open = `    <testcase classname="PROTOCOL ${xml(section)}" name="${xml(c.id)}" time="${(c.ms / 1000).toFixed(3)}"`;
      if (c.status === 'pass') lines.push(`${open}/>`);
      else if (c.status === 'skip') lines.push(`${open}><skipped message="${xml(c.message)}"/></testcase>`);
      else lines.push(`${open}><failure message="${xml(c.message)}">${xml(c.message)}</failure></testcase>`);
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
