/**
 * Runs the conformance cases one after another against the mod that dials the harness: waits
 * for its first connection, gives each case the open session (or the next connection), bounds
 * each case by a budget so a hung op never hangs the run, and when the mod drops the link waits
 * for its redial. A mod that does not come back ends the run with one failure, the cases left
 * marked not run; a case whose needed case failed is not run either, naming the root failure.
 */
import type { KeyPair } from '../protocol/keys.ts';
import { OPS, isOpName } from '../protocol/ops/index.ts';
import {
  CaseFail,
  CaseSkip,
  fail,
  ModGone,
  type CallOptions,
  type CaseContext,
  type CaseResult,
  type ModCase,
} from './case.ts';
import { opId } from './cases-ops.ts';
import {
  HandshakeProblem,
  type CallAnswer,
  type HandshakeResult,
  type HarnessLink,
  type ReceivedEvents,
  type WelcomeTweak,
} from './harness-link.ts';
import type { HarnessServer } from './harness-server.ts';

export interface RunSettings {
  identity: KeyPair;
  trustedModKeys: readonly Uint8Array[];
  /** How long to wait for the mod's first connection. */
  waitMs: number;
  /** How long to wait for the mod to redial after a close. */
  reconnectMs: number;
  /** Caps the deadline_ms each op is sent with (its catalogue deadline otherwise). */
  opDeadlineMs?: number;
  /** The longest one case may run before it fails and its link is closed. */
  caseBudgetMs: number;
  /** How long a mod may take to close after a frame it must reject. */
  rejectWithinMs: number;
  /** Called with each result as it is known (the CLI prints progress). */
  onResult?: (result: CaseResult) => void;
}

/** No mod dialled in time, or another problem before any case could run. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupError';
  }
}

class Fixtures {
  readonly #found = new Map<string, Promise<unknown>>();

  get<T>(name: string, find: () => Promise<T>): Promise<T> {
    let found = this.#found.get(name) as Promise<T> | undefined;
    if (found === undefined) {
      found = find();
      // A fixture that failed is looked for again by the next case that needs it.
      found.catch(() => this.#found.delete(name));
      this.#found.set(name, found);
    }
    return found;
  }
}

class RunContext implements CaseContext {
  readonly fixtures = new Fixtures();
  readonly links: HarnessLink[] = [];
  lastWelcome: Uint8Array | null = null;
  #current: HarnessLink | null = null;
  #pending: HarnessLink | null = null;
  /** Set once the mod closed and did not dial again in time: every later wait ends at once. */
  #gone = false;
  /** Whether the running case has had a connection of the mod (reset by the runner per case). */
  seenInCase = false;
  readonly #answeredOnEvents = new Map<string, number>();
  readonly #server: HarnessServer;
  readonly #settings: RunSettings;

  constructor(server: HarnessServer, settings: RunSettings, first: HarnessLink) {
    this.#server = server;
    this.#settings = settings;
    this.#pending = first;
  }

  get identity(): KeyPair {
    return this.#settings.identity;
  }

  get trustedModKeys(): readonly Uint8Array[] {
    return this.#settings.trustedModKeys;
  }

  get reconnectMs(): number {
    return this.#settings.reconnectMs;
  }

  get rejectWithinMs(): number {
    return this.#settings.rejectWithinMs;
  }

  async link(): Promise<HarnessLink> {
    if (this.#current?.isOpen) {
      this.seenInCase = true;
      return this.#current;
    }
    const deadline = Date.now() + this.reconnectMs;
    for (;;) {
      const link = await this.#take(Math.max(1, deadline - Date.now()));
      try {
        await this.open(link, true);
        return link;
      } catch (error) {
        // A connection that closed before its handshake finished: the mod redials; try again.
        if (!(error instanceof CaseFail) || link.closed === null || Date.now() >= deadline) throw error;
      }
    }
  }

  async freshLink(events = true): Promise<HarnessLink> {
    const { link } = await this.nextConnection('shutdown');
    await this.open(link, events);
    return link;
  }

  async nextConnection(
    code: 'shutdown' | 'superseded' = 'shutdown',
  ): Promise<{ link: HarnessLink; afterMs: number }> {
    await this.endCurrent(code);
    const started = Date.now();
    const link = await this.#take(this.reconnectMs);
    return { link, afterMs: Date.now() - started };
  }

  async endCurrent(code: 'shutdown' | 'superseded' = 'shutdown'): Promise<void> {
    const current = this.#current;
    this.#current = null;
    if (current && current.closed === null) {
      current.close(code);
      await current.waitClose(3_000);
    }
  }

  async open(link: HarnessLink, events = true): Promise<HandshakeResult> {
    const handshake = await this.#guard(link.welcome(this.identity, this.trustedModKeys, this.reconnectMs));
    await this.#guard(handshake.finish(this.reconnectMs, events));
    this.#current = link;
    this.lastWelcome = handshake.welcome;
    return handshake;
  }

  welcome(link: HarnessLink, tweak: WelcomeTweak): Promise<HandshakeResult> {
    return this.#guard(link.welcome(this.identity, this.trustedModKeys, this.reconnectMs, tweak));
  }

  async peekRedial(withinMs: number): Promise<number | null> {
    const started = Date.now();
    const link = await this.#server.next(withinMs);
    if (link === null) return null;
    this.#track(link);
    this.#pending = link;
    return Date.now() - started;
  }

  eventBodies(): ReceivedEvents[] {
    return this.links.flatMap((link) => link.events);
  }

  deadlineFor(op: string): number {
    const catalogue = isOpName(op) ? OPS[op].deadlineMs : 5_000;
    return Math.min(catalogue, this.#settings.opDeadlineMs ?? catalogue);
  }

  async call(op: string, args: unknown, options: CallOptions = {}): Promise<CallAnswer> {
    const link = await this.link();
    const mutates = isOpName(op) && OPS[op].mutates;
    const id = options.opId ?? (mutates ? opId() : undefined);
    const answer = await link.call(op, args, options.deadlineMs ?? this.deadlineFor(op), id);
    if (answer.kind === 'ok' && link.announcesEvents && !this.#answeredOnEvents.has(op))
      this.#answeredOnEvents.set(op, Date.now());
    return answer;
  }

  firstAnsweredOnEvents(op: string): number | null {
    return this.#answeredOnEvents.get(op) ?? null;
  }

  get gone(): boolean {
    return this.#gone;
  }

  /**
   * After a failed case: true when the mod still has a session or dials again within the
   * reconnect wait (the connection is kept for the next case), false when it went away.
   */
  async comeBack(): Promise<boolean> {
    if (this.#gone) return false;
    if (this.#current?.isOpen || this.#pending !== null || this.#server.queued > 0) return true;
    const link = await this.#server.next(this.reconnectMs);
    if (link === null) {
      this.#gone = true;
      return false;
    }
    this.#track(link);
    this.#pending = link;
    return true;
  }

  async #take(timeoutMs: number): Promise<HarnessLink> {
    const pending = this.#pending;
    this.#pending = null;
    const link = pending ?? (this.#gone ? null : await this.#server.next(timeoutMs));
    if (link === null) {
      this.#gone = true;
      throw new ModGone(
        `the mod did not dial again within ${timeoutMs} ms (§5.4: a mod redials after any close)`,
      );
    }
    this.seenInCase = true;
    this.#track(link);
    return link;
  }

  #track(link: HarnessLink): void {
    if (!this.links.includes(link)) this.links.push(link);
  }

  async #guard<T>(step: Promise<T>): Promise<T> {
    try {
      return await step;
    } catch (error) {
      if (error instanceof HandshakeProblem) fail(`in the handshake the mod ${error.message}`);
      throw error;
    }
  }
}

async function runOne(mod: ModCase, ctx: RunContext, budgetMs: number): Promise<CaseResult> {
  const started = performance.now();
  const result = (status: CaseResult['status'], message: string): CaseResult =>
    caseResult(mod, status, message, Math.round(performance.now() - started));
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CaseFail(`the case did not finish within ${budgetMs} ms`)), budgetMs);
  });
  try {
    const note = await Promise.race([mod.run(ctx), budget]);
    return result('pass', note ?? '');
  } catch (error) {
    if (error instanceof CaseSkip) return result('skip', error.message);
    if (error instanceof CaseFail) {
      if (error.message.startsWith('the case did not finish')) await ctx.endCurrent();
      return result('fail', error.message);
    }
    return result('fail', `harness fault: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** PROTOCOL §5.1: the mod pings on its own every 10 s; a run shorter than that cannot see it. */
function modPingsResult(mod: ModCase, ctx: RunContext): CaseResult {
  const pings = ctx.links.reduce((sum, link) => sum + link.modPings, 0);
  const longest = Math.max(
    0,
    ...ctx.links.map((link) => (link.openedAt === null ? 0 : (link.closedAt ?? Date.now()) - link.openedAt)),
  );
  if (pings > 0) return caseResult(mod, 'pass', `the mod sent ${pings} ping(s) of its own`, 0);
  if (longest < 12_000) {
    return caseResult(
      mod,
      'skip',
      `no session lasted 12 s (longest ${longest} ms), too short to see the mod's own ping (every 10 s)`,
      0,
    );
  }
  return caseResult(
    mod,
    'fail',
    `the mod sent no ping in a session of ${longest} ms; it pings every 10 s by default (§5.1)`,
    0,
  );
}

/** A result with its fields in the documented order (`--json`). */
function caseResult(mod: ModCase, status: CaseResult['status'], message: string, ms: number): CaseResult {
  return { id: mod.id, op: mod.op, section: mod.section, status, message, ms, needs: [...(mod.needs ?? [])] };
}

/**
 * What the run knows before running `mod`: the root failure that keeps it from running (a needed
 * case failed, or one it needs was not run for that reason), or the skip it inherits.
 */
class Outcomes {
  readonly #results = new Map<string, CaseResult>();
  /** For a failed case itself, for a not-run case the failure it traces back to. */
  readonly #rootFailure = new Map<string, string>();
  /** For a skipped case, the case whose skip it inherited (itself when it skipped on its own). */
  readonly #rootSkip = new Map<string, string>();

  record(result: CaseResult, root?: string): void {
    this.#results.set(result.id, result);
    if (result.status === 'fail') this.#rootFailure.set(result.id, result.id);
    if (result.status === 'not_run' && root !== undefined) this.#rootFailure.set(result.id, root);
    if (result.status === 'skip') this.#rootSkip.set(result.id, root ?? result.id);
  }

  /** A result for `mod` without running it, and the root it traces to; null to run it. */
  decide(mod: ModCase): { result: CaseResult; root?: string } | null {
    const needs = mod.needs ?? [];
    for (const need of needs) {
      const root = this.#rootFailure.get(need);
      if (root !== undefined)
        return { result: caseResult(mod, 'not_run', `not run, because ${root} failed`, 0), root };
    }
    for (const need of needs) {
      const root = this.#rootSkip.get(need);
      const skipped = root === undefined ? undefined : this.#results.get(root);
      if (root !== undefined && skipped !== undefined) {
        const message = `needs ${root}, which was skipped: ${skipped.message}`;
        return { result: caseResult(mod, 'skip', message, 0), root };
      }
    }
    return null;
  }
}

export async function runCases(
  server: HarnessServer,
  cases: readonly ModCase[],
  settings: RunSettings,
): Promise<CaseResult[]> {
  const first = await server.next(settings.waitMs);
  if (first === null) {
    const { host, port } = server.address;
    throw new SetupError(
      `no mod dialled ws://${host}:${port}/ within ${settings.waitMs} ms: is the game server's mod given this data dir's mod-credentials.json, and is its url this address?`,
    );
  }
  const ctx = new RunContext(server, settings, first);
  const outcomes = new Outcomes();
  const results: CaseResult[] = [];
  let lastRun: string | null = null;
  let goneNote: string | null = null;
  for (const mod of cases) {
    const decided =
      goneNote === null ? outcomes.decide(mod) : { result: caseResult(mod, 'not_run', goneNote, 0) };
    let result = decided?.result;
    if (result === undefined) {
      result = await runCase(mod, ctx, settings, lastRun);
      lastRun = mod.id;
      if (ctx.gone) goneNote = `not run, because the mod went away (${mod.id} failed)`;
    }
    outcomes.record(result, decided?.root);
    results.push(result);
    settings.onResult?.(result);
  }
  await ctx.endCurrent();
  return results;
}

/**
 * Runs one case; when it fails and the mod does not come back, its result says so once, for the
 * whole run (every case after it is not run).
 */
async function runCase(
  mod: ModCase,
  ctx: RunContext,
  settings: RunSettings,
  lastRun: string | null,
): Promise<CaseResult> {
  if (mod.id === 'heartbeat.mod-pings') return modPingsResult(mod, ctx);
  ctx.seenInCase = false;
  const result = await runOne(mod, ctx, settings.caseBudgetMs);
  if (result.status !== 'fail') return result;
  const wait = `did not come back within ${settings.reconnectMs} ms (§5.4: a mod redials after any close), so the run ends here`;
  if (ctx.gone && !ctx.seenInCase) {
    // It closed before this case could reach it: the case is not at fault.
    const after = lastRun === null ? 'its first session' : `case ${lastRun}`;
    return { ...result, message: `the mod went away after ${after} and ${wait}` };
  }
  if (ctx.gone) return { ...result, message: `the mod went away during this case and ${wait}` };
  if (await ctx.comeBack()) return result;
  return {
    ...result,
    message: `the mod went away during this case and ${wait}; the case saw: ${result.message}`,
  };
}
