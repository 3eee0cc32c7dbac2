/**
 * Runs the conformance cases one after another against the mod that dials the harness: waits
 * for its first connection, gives each case the open session (or the next connection), bounds
 * each case by a budget so a hung op never hangs the run, and when the mod drops the link waits
 * for its redial; cases that need the link and never get it back fail as lost.
 */
import type { KeyPair } from '../protocol/keys.ts';
import { OPS, isOpName } from '../protocol/ops/index.ts';
import {
  CaseFail,
  CaseSkip,
  fail,
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

  async link(): Promise<HarnessLink> {
    if (this.#current?.isOpen) return this.#current;
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
    return link.call(op, args, options.deadlineMs ?? this.deadlineFor(op), id);
  }

  async #take(timeoutMs: number): Promise<HarnessLink> {
    const pending = this.#pending;
    this.#pending = null;
    const link = pending ?? (await this.#server.next(timeoutMs));
    if (link === null) {
      fail(
        `lost: the mod did not dial again within ${timeoutMs} ms, so this case could not run (§5.4: a mod redials after any close)`,
      );
    }
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
  return { id: mod.id, op: mod.op, section: mod.section, status, message, ms };
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
  const results: CaseResult[] = [];
  for (const mod of cases) {
    const result =
      mod.id === 'heartbeat.mod-pings'
        ? modPingsResult(mod, ctx)
        : await runOne(mod, ctx, settings.caseBudgetMs);
    results.push(result);
    settings.onResult?.(result);
  }
  await ctx.endCurrent();
  return results;
}
