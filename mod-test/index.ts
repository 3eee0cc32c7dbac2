/**
 * `modgate mod test`: a conformance harness that plays the daemon against a real mod
 * (docs/mod-testing.md). It listens where the mod dials, with the daemon's identity and the mod
 * keys the data dir trusts, runs every case in a fixed order (the handshake, the ops and their
 * paging, the game behaviours, where a write comes from, the game events, the rejections, the
 * judges of the whole run so far (every answer, every event), and last the superseded close,
 * after which a mod stays away for seconds) and reports each with its PROTOCOL.md section.
 * It builds only on `protocol/`, whose shared parts it checks against the golden vectors before
 * every run (self-check.ts): the CLI reads the data dir and hands it the keys.
 */
import type { KeyPair } from '../protocol/keys.ts';
import type { CaseResult, ModCase } from './case.ts';
import { capCases } from './cases-caps.ts';
import { errorCases } from './cases-errors.ts';
import { eventCases } from './cases-events.ts';
import { gameCases } from './cases-game.ts';
import { sourceCases } from './cases-source.ts';
import { closingCases, openingCases, REJECT_WITHIN_MS, rejectionCases } from './cases-link.ts';
import { validCallCases } from './cases-ops.ts';
import { pageCases } from './cases-pages.ts';
import { answerOnceCase, repeatCases } from './cases-repeats.ts';
import { streamCases } from './cases-streams.ts';
import { HarnessServer } from './harness-server.ts';
import { summarize, type ModTestReport } from './report.ts';
import { runCases } from './runner.ts';
import { selfCheck, type GoldenVectors } from './self-check.ts';

export { SetupError } from './runner.ts';
export { SelfCheckError } from './self-check.ts';
export { failureBlock, junitXml, resultLine, summaryLine, type ModTestReport } from './report.ts';
export type { CaseResult } from './case.ts';

export interface ModTestOptions {
  /** The daemon's Ed25519 key pair (identity.json): the key the mod pins. */
  identity: KeyPair;
  /** The mod keys the daemon trusts (mod-keys.json). */
  trustedModKeys: readonly Uint8Array[];
  host: string;
  /** 0 picks a free port; `onListening` says which. */
  port: number;
  /** How long to wait for the mod's first connection (default 60 s). */
  waitMs?: number;
  /** How long to wait for a redial after a close (default 15 s). */
  reconnectMs?: number;
  /** Caps the deadline_ms of every op (default: each op's catalogue deadline, 5 or 10 s). */
  opDeadlineMs?: number;
  /**
   * How long a mod may take to close after a frame it must reject (default REJECT_WITHIN_MS,
   * 10 s). A mod that accepts the frame is judged only when it is over, so tests of such mods
   * shorten it.
   */
  rejectWithinMs?: number;
  /** The longest one case may run (default 60 s). */
  caseBudgetMs?: number;
  /** Runs only the cases whose id or op matches one of these globs (`*` any text). */
  only?: readonly string[];
  /** Leaves out the cases whose id or op matches one of these globs. */
  skip?: readonly string[];
  /** The vectors the shared protocol code is checked against first (default golden.json, §8). */
  goldenVectors?: GoldenVectors;
  /** Called with how many golden vectors the shared code reproduced, before listening. */
  onSelfCheck?: (vectors: number) => void;
  onListening?: (address: { host: string; port: number }) => void;
  onResult?: (result: CaseResult) => void;
}

export const DEFAULT_WAIT_MS = 60_000;
const DEFAULT_RECONNECT_MS = 15_000;
const DEFAULT_CASE_BUDGET_MS = 60_000;

const MOD_PINGS: ModCase = {
  id: 'heartbeat.mod-pings',
  op: null,
  section: '§5.1',
  run: () => Promise.resolve(), // judged by the runner from the whole run
};

/** Every case, in the order the run takes them. */
export function allCases(): ModCase[] {
  return [
    ...openingCases(),
    ...validCallCases(),
    ...pageCases(),
    ...errorCases(),
    ...gameCases(),
    ...capCases(),
    ...repeatCases(),
    ...sourceCases(),
    ...eventCases(),
    ...rejectionCases(),
    // Judges of the whole run so far: every answer, every event.
    answerOnceCase(),
    ...streamCases(),
    MOD_PINGS,
    ...closingCases(),
  ];
}

function globRegex(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^${escaped}$`);
}

/** The cases `only` and `skip` select (by id or op name). */
export function selectCases(
  cases: readonly ModCase[],
  only: readonly string[] = [],
  skip: readonly string[] = [],
): ModCase[] {
  const matches = (patterns: readonly string[], mod: ModCase) =>
    patterns.some((glob) => {
      const regex = globRegex(glob);
      return regex.test(mod.id) || (mod.op !== null && regex.test(mod.op));
    });
  return cases.filter((mod) => (only.length === 0 || matches(only, mod)) && !matches(skip, mod));
}

/** `--only` and `--skip` left no case to run: said before any mod is waited for. */
export class NoCasesError extends Error {
  constructor(only: readonly string[], skip: readonly string[]) {
    const flags = [...only.map((p) => `--only '${p}'`), ...skip.map((p) => `--skip '${p}'`)].join(' ');
    super(
      `${flags || 'the selection'} matches no case, so there is nothing to run: \`modgate mod test --list\` lists the case ids (also in docs/mod-testing.md, "The cases": \`modgate docs mod-testing\`)`,
    );
    this.name = 'NoCasesError';
  }
}

export async function runModTest(options: ModTestOptions): Promise<ModTestReport> {
  const selected = selectCases(allCases(), options.only, options.skip);
  if (selected.length === 0) throw new NoCasesError(options.only ?? [], options.skip ?? []);
  const vectors = selfCheck(options.goldenVectors); // before anything is judged, every run
  options.onSelfCheck?.(vectors);
  const server = await HarnessServer.listen(options.host, options.port);
  try {
    options.onListening?.(server.address);
    const cases = await runCases(server, selected, {
      identity: options.identity,
      trustedModKeys: options.trustedModKeys,
      waitMs: options.waitMs ?? DEFAULT_WAIT_MS,
      reconnectMs: options.reconnectMs ?? DEFAULT_RECONNECT_MS,
      caseBudgetMs: options.caseBudgetMs ?? DEFAULT_CASE_BUDGET_MS,
      rejectWithinMs: options.rejectWithinMs ?? REJECT_WITHIN_MS,
      ...(options.opDeadlineMs !== undefined ? { opDeadlineMs: options.opDeadlineMs } : {}),
      ...(options.onResult ? { onResult: options.onResult } : {}),
    });
    return { cases, summary: summarize(cases) };
  } finally {
    await server.close();
  }
}
