/**
 * `npm run lint:openapi`: lints the documents the daemon serves at GET /openapi.json and GET
 * /admin/v1/openapi.json with Redocly (`recommended`, redocly.yaml) and Spectral (`spectral:oas`,
 * .spectral.yaml). Any error or warning from either fails the run: CI (.ci/run) holds both
 * documents at zero of both.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeServedDocument } from './openapi-document.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

/** Runs a linter; its exit status is ignored, its JSON report is what counts. */
async function report(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout) return stdout;
    throw error;
  }
}

interface Problem {
  tool: string;
  severity: string;
  rule: string;
  where: string;
  message: string;
}

async function redocly(file: string): Promise<Problem[]> {
  const out = await report(bin('redocly'), [
    'lint',
    file,
    '--config',
    join(ROOT, 'redocly.yaml'),
    '--format=json',
  ]);
  const parsed = JSON.parse(out.slice(out.indexOf('{'))) as {
    problems: Array<{
      ruleId: string;
      severity: string;
      message: string;
      location: Array<{ pointer: string }>;
    }>;
  };
  return parsed.problems.map((p) => ({
    tool: 'redocly',
    severity: p.severity,
    rule: p.ruleId,
    where: p.location[0]?.pointer ?? '',
    message: p.message,
  }));
}

const SPECTRAL_SEVERITY = ['error', 'warning', 'info', 'hint'];

async function spectral(file: string): Promise<Problem[]> {
  const out = await report(bin('spectral'), [
    'lint',
    file,
    '--ruleset',
    join(ROOT, '.spectral.yaml'),
    '--format',
    'json',
    '--quiet',
  ]);
  const parsed = JSON.parse(out.slice(out.indexOf('['))) as Array<{
    code: string;
    severity: number;
    message: string;
    path: string[];
  }>;
  return parsed.map((p) => ({
    tool: 'spectral',
    severity: SPECTRAL_SEVERITY[p.severity] ?? String(p.severity),
    rule: p.code,
    where: p.path.join('.'),
    message: p.message,
  }));
}

for (const which of ['public', 'admin'] as const) {
  const file = await writeServedDocument(which);
  try {
    const problems = [...(await redocly(file)), ...(await spectral(file))].filter(
      (p) => p.severity === 'error' || p.severity === 'warn' || p.severity === 'warning',
    );
    for (const p of problems) console.error(`${p.tool} ${p.severity} ${p.rule} at ${p.where}: ${p.message}`);
    console.log(
      `openapi lint (${which}): ${problems.length} errors and warnings (redocly recommended, spectral:oas)`,
    );
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    await rm(dirname(file), { recursive: true, force: true });
  }
}
