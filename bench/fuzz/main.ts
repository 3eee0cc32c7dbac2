/**
 * `npm run fuzz -- --requests N --seed S [--concurrency C] [--binary] [--case I] [--max-minutes M]`
 *
 * Starts a real `serve` and a linked `sim` (stack.ts), then sends N requests from the seeded
 * cases (cases.ts) over raw sockets to 127.0.0.1, C connections at a time, and checks every
 * answer (checks.ts) while watching the daemon: a crash (serve exits) or a `/healthz` that stops
 * answering ends the run at once. Exits 1 on any finding, printing the seed, the case number and
 * the request's bytes so `--seed S --case I` replays it alone. docs/fuzzing.md has the details.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ROUTES } from '../../daemon/routes/index.ts';
import { logLines } from '../../harness/processes.ts';
import { makeCase, type FuzzCase, type FuzzTarget } from './cases.ts';
import { isTolerated5xx, problemWith } from './checks.ts';
import { operationsOf, type Document } from './operations.ts';
import { health, startFuzzStack, type FuzzStack } from './stack.ts';
import { Wire, type Exchange } from './wire.ts';

interface Finding {
  problem: string;
  fuzzCase: FuzzCase;
  answer?: string;
}

interface Tally {
  requests: number;
  cases: number;
  byFamily: Map<string, number>;
  byStatus: Map<number, number>;
  /** The tolerated 503/504 answers: how many, and the first few cases, to look at. */
  tolerated5xx: number;
  toleratedCases: string[];
  unanswered: Map<string, number>;
  /** Well-formed requests the daemon closed on or never answered: the first few cases. */
  unansweredValid: number[];
  /** The first MAX_KEPT findings; `findingCount` counts them all. */
  findings: Finding[];
  findingCount: number;
}

/** Answers to hostile bytes may never come (node waits for the rest); valid ones get longer. */
const HOSTILE_WAIT_MS = 3_000;
const VALID_WAIT_MS = 20_000;
const HEALTH_EVERY_MS = 2_000;
const HEALTH_MISSES = 3;
const MAX_SHOWN = 10;
const MAX_KEPT = 100;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '3000' },
      seed: { type: 'string' },
      concurrency: { type: 'string', default: '32' },
      binary: { type: 'boolean', default: false },
      case: { type: 'string', multiple: true },
      'max-minutes': { type: 'string', default: '60' },
    },
  });
  const requests = positive(values.requests, '--requests');
  const seed =
    values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : positive(values.seed, '--seed', 0);
  const concurrency = Math.min(positive(values.concurrency, '--concurrency'), 256);
  const deadline = Date.now() + positive(values['max-minutes'], '--max-minutes') * 60_000;
  const only = values.case?.map((text) => positive(text, '--case', 0)) ?? null;
  const binary = values.binary ? binaryPath() : null;

  console.log(
    `fuzz: seed ${seed}, ${only ? `case ${only.join(', ')}` : `${requests} requests`}, concurrency ${concurrency}${binary ? `, binary ${binary}` : ''}`,
  );
  const stack = await startFuzzStack(binary);
  try {
    const target = await targetOf(stack);
    const tally = await fuzz(stack, target, { seed, requests, concurrency, deadline, only });
    return report(tally, seed, stack);
  } finally {
    await stack.close();
  }
}

function positive(text: string, flag: string, min = 1): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`${flag} takes an integer >= ${min}, not ${text}`);
  return value;
}

function binaryPath(): string {
  const path = process.env['MODGATE_BINARY'] ?? new URL('../../dist/modgate', import.meta.url).pathname;
  if (!existsSync(path)) throw new Error(`no binary at ${path}: npm run build, or set MODGATE_BINARY`);
  return path;
}

/** The operations from the daemon's OpenAPI document, checked against the route table. */
async function targetOf(stack: FuzzStack): Promise<FuzzTarget> {
  const doc = (await (await fetch(`http://127.0.0.1:${stack.apiPort}/openapi.json`)).json()) as Document;
  const operations = operationsOf(doc).filter((op) => op.path.startsWith('/v1/'));
  const missing = ROUTES.filter(
    (route) => !operations.some((op) => op.method === route.method && op.path === route.path),
  );
  if (missing.length > 0)
    throw new Error(
      `routes missing from /openapi.json: ${missing.map((r) => `${r.method} ${r.path}`).join(', ')}`,
    );
  return { host: `127.0.0.1:${stack.apiPort}`, key: stack.key, doc, operations, ids: stack.ids };
}

interface Plan {
  seed: number;
  requests: number;
  concurrency: number;
  deadline: number;
  only: number[] | null;
}

async function fuzz(stack: FuzzStack, target: FuzzTarget, plan: Plan): Promise<Tally> {
  const tally: Tally = {
    requests: 0,
    cases: 0,
    byFamily: new Map(),
    byStatus: new Map(),
    tolerated5xx: 0,
    toleratedCases: [],
    unanswered: new Map(),
    unansweredValid: [],
    findings: [],
    findingCount: 0,
  };
  const inFlight = new Set<FuzzCase>();
  let stopped = false;
  const crash = (problem: string) => {
    if (stopped) return;
    stopped = true;
    const suspects = [...inFlight];
    for (const fuzzCase of suspects) note(tally, { problem: `${problem} (in flight)`, fuzzCase });
    if (suspects.length === 0) note(tally, { problem, fuzzCase: makeCase(plan.seed, tally.cases, target) });
  };
  stack.serve.once('exit', (code, signal) =>
    crash(`serve exited (${signal ?? code}); its last output is below`),
  );
  const watchdog = watchHealth(stack.apiPort, () => crash('/healthz stopped answering'));
  const started = Date.now();
  const progress = setInterval(() => {
    const rate = Math.round(tally.requests / ((Date.now() - started) / 1000));
    console.log(`  ${tally.requests} requests, ${rate}/s, ${tally.findingCount} findings`);
  }, 10_000);
  let next = 0;
  const nextCase = (): FuzzCase | null => {
    if (stopped || Date.now() > plan.deadline) return null;
    const index = plan.only ? plan.only[next++] : tally.requests < plan.requests ? next++ : undefined;
    if (index === undefined) return null;
    const fuzzCase = makeCase(plan.seed, index, target);
    tally.requests += fuzzCase.methods.length;
    return fuzzCase;
  };
  const worker = async () => {
    let kept: Wire | null = null;
    for (let fuzzCase = nextCase(); fuzzCase; fuzzCase = nextCase()) {
      inFlight.add(fuzzCase);
      try {
        const reuse: Wire | null = fuzzCase.keepAlive && kept?.usable ? kept : null;
        if (!reuse) kept?.destroy();
        const wire: Wire = reuse ?? (await Wire.open(stack.apiPort));
        const exchange = await wire.exchange(fuzzCase, fuzzCase.keepAlive ? VALID_WAIT_MS : HOSTILE_WAIT_MS);
        record(tally, fuzzCase, exchange);
        kept = fuzzCase.keepAlive && wire.usable ? wire : (wire.destroy(), null);
      } catch (error) {
        kept = null;
        // Refused or reset on connect: the daemon may be gone; the watchdog and the exit say so.
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (stack.serve.exitCode !== null) crash(`cannot connect: ${String(error)}`);
      } finally {
        inFlight.delete(fuzzCase);
        tally.cases++;
      }
    }
    kept?.destroy();
  };
  await Promise.all(Array.from({ length: plan.only ? 1 : plan.concurrency }, worker));
  clearInterval(progress);
  watchdog.stop();
  // One more look: a crash from the last requests shows up now, and so does a lost mod link.
  const after = stopped ? undefined : await health(stack.apiPort);
  if (after === null) crash('/healthz does not answer after the run');
  else if (after && !after.mod_connected) crash('the mod is no longer linked after the run');
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `sent ${tally.requests} requests (${tally.cases} cases) in ${seconds.toFixed(1)} s: ${Math.round(tally.requests / seconds)}/s`,
  );
  return tally;
}

function record(tally: Tally, fuzzCase: FuzzCase, exchange: Exchange): void {
  count(tally.byFamily, fuzzCase.family);
  if (exchange.unanswered > 0) {
    count(tally.unanswered, fuzzCase.family, exchange.unanswered);
    if (fuzzCase.family === 'valid' && tally.unansweredValid.length < 5)
      tally.unansweredValid.push(fuzzCase.index);
  }
  if (exchange.unreadable) {
    note(tally, { problem: `an answer that is not HTTP: ${exchange.unreadable}`, fuzzCase });
  }
  for (const [position, { response, method }] of exchange.answers.entries()) {
    count(tally.byStatus, response.status);
    const body = response.body.subarray(0, 500).toString('latin1');
    if (isTolerated5xx(response.status)) {
      tally.tolerated5xx++;
      if (tally.toleratedCases.length < 5)
        tally.toleratedCases.push(`${fuzzCase.index} (${body.slice(0, 160)})`);
    }
    const problem = problemWith(response, method);
    if (problem) {
      const answer = `HTTP ${response.status} ${JSON.stringify(response.headers)}\n    ${JSON.stringify(body)}`;
      const to = `answer ${position + 1} of ${fuzzCase.methods.length}, to ${fuzzCase.requestLines[position] ?? '?'}`;
      note(tally, { problem: `${problem} (${to})`, fuzzCase, answer });
    }
  }
}

/** Keeps the first findings whole (a systematic one would otherwise fill memory) and counts all. */
function note(tally: Tally, finding: Finding): void {
  tally.findingCount++;
  if (tally.findings.length < MAX_KEPT) tally.findings.push(finding);
}

function count<K>(map: Map<K, number>, key: K, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

function watchHealth(port: number, onDown: () => void): { stop(): void } {
  let misses = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void health(port).then((answer) => {
      busy = false;
      misses = answer === null ? misses + 1 : 0;
      if (misses >= HEALTH_MISSES) onDown();
    });
  }, HEALTH_EVERY_MS);
  return { stop: () => clearInterval(timer) };
}

function report(tally: Tally, seed: number, stack: FuzzStack): number {
  const sorted = <K>(map: Map<K, number>) =>
    [...map].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  console.log(
    `families: ${sorted(tally.byFamily)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log(
    `statuses: ${sorted(tally.byStatus)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
  );
  if (tally.tolerated5xx > 0) {
    console.log(`tolerated 503/504 answers: ${tally.tolerated5xx}; cases ${tally.toleratedCases.join('; ')}`);
  }
  if (tally.unanswered.size > 0) {
    const list = sorted(tally.unanswered).map(([k, v]) => `${k} ${v}`);
    console.log(`unanswered (closed or silent): ${list.join(', ')}`);
  }
  if (tally.unansweredValid.length > 0)
    console.log(`unanswered valid cases: ${tally.unansweredValid.join(', ')}`);
  if (tally.findingCount === 0) {
    console.log(`no findings (seed ${seed})`);
    return 0;
  }
  console.log(
    `\n${tally.findingCount} FINDINGS (seed ${seed}); the first ${Math.min(MAX_SHOWN, tally.findings.length)}:`,
  );
  for (const { problem, fuzzCase, answer } of tally.findings.slice(0, MAX_SHOWN)) {
    console.log(`\n- ${problem}`);
    console.log(
      `  case ${fuzzCase.index} (${fuzzCase.family}, reset ${JSON.stringify(fuzzCase.reset)}); replay: npm run fuzz -- --seed ${seed} --case ${fuzzCase.index}`,
    );
    const shown = fuzzCase.bytes.subarray(0, 2_000).toString('latin1');
    console.log(
      `  request, ${fuzzCase.bytes.length} bytes${fuzzCase.bytes.length > 2_000 ? ' (first 2000)' : ''}: ${JSON.stringify(shown)}`,
    );
    if (answer) console.log(`  answer: ${answer}`);
  }
  if (stack.serve.exitCode !== null) {
    console.log(`\nserve's last output:\n${stack.serve.output().slice(-3_000)}`);
  }
  // A 500 is logged whole (error, stack, request id) by the daemon: its first few, to match up.
  const errors = logLines(stack.serve).filter((line) => line['level'] === 'error');
  for (const line of errors.slice(0, 5))
    console.log(`\nserve logged: ${JSON.stringify(line).slice(0, 3_000)}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
