/**
 * What a conformance case is and how it ends: each case has a stable id, the op it exercises
 * (null for link cases), the PROTOCOL.md section it checks, the cases it needs (whose failure
 * means it is not run, so one fault is reported once), and a `run` that returns a note on success
 * or throws `CaseFail` / `CaseSkip` with a sentence a mod author can act on.
 */
import type { KeyPair } from '../protocol/keys.ts';
import type {
  CallAnswer,
  HarnessLink,
  HandshakeResult,
  ReceivedEvents,
  WelcomeTweak,
} from './harness-link.ts';

/** `not_run`: a case it needs failed, or the mod went away; the message names which. */
export type CaseStatus = 'pass' | 'fail' | 'skip' | 'not_run';

export interface CaseResult {
  id: string;
  op: string | null;
  section: string;
  status: CaseStatus;
  message: string;
  ms: number;
  /** The cases this one needs (`ModCase.needs`). */
  needs: string[];
}

export class CaseFail extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaseFail';
  }
}

/** The mod closed and did not dial again within the reconnect wait: the run cannot go on. */
export class ModGone extends CaseFail {
  constructor(message: string) {
    super(message);
    this.name = 'ModGone';
  }
}

/** Not a failure: the mod lacks the op (`unsupported`, §6.1) or the world lacks what it needs. */
export class CaseSkip extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaseSkip';
  }
}

export interface CallOptions {
  opId?: string;
  deadlineMs?: number;
}

/** What a case may do: use the open session (reconnecting if the mod dropped it) or open its own. */
export interface CaseContext {
  /** The open session; waits for the mod to redial when the last one ended. */
  link(): Promise<HarnessLink>;
  /** Ends the current session (`shutdown`) and opens a fresh one, `events` announced or not (§9.1). */
  freshLink(events?: boolean): Promise<HarnessLink>;
  /**
   * Ends the current session with `code` (default `shutdown`) and returns the next connection the
   * mod opens, before any handshake (handshake cases); fails when it does not redial in time.
   */
  nextConnection(code?: 'shutdown' | 'superseded'): Promise<{ link: HarnessLink; afterMs: number }>;
  /** Runs a whole handshake on `link` and makes it the current session (§3, §4.5). */
  open(link: HarnessLink, events?: boolean): Promise<HandshakeResult>;
  /** The data dir's identity and trusted mod keys: what the daemon would use (§3.3). */
  readonly identity: KeyPair;
  readonly trustedModKeys: readonly Uint8Array[];
  /** Answers the hello on `link` with a welcome changed by `tweak`, and nothing more. */
  welcome(link: HarnessLink, tweak: WelcomeTweak): Promise<HandshakeResult>;
  /** Ms until the mod's next connection arrives, or null when none comes within `withinMs`. */
  peekRedial(withinMs: number): Promise<number | null>;
  /** Every `events` body the mod sent in the run so far, on every connection, in order. */
  eventBodies(): ReceivedEvents[];
  /** Every connection of the run so far, in order (cases that judge the whole run). */
  readonly links: readonly HarnessLink[];
  /** The last welcome the harness sent, for the replay case. */
  readonly lastWelcome: Uint8Array | null;
  call(op: string, args: unknown, options?: CallOptions): Promise<CallAnswer>;
  /** The op's deadline the harness sends (its catalogue deadline unless the run shortens it). */
  deadlineFor(op: string): number;
  /** When `op` first answered a result on a session that announced events (§9.1), or null. */
  firstAnsweredOnEvents(op: string): number | null;
  /** How long to wait for the mod to redial or to close. */
  readonly reconnectMs: number;
  /** How long a mod may take to close after a frame it must reject. */
  readonly rejectWithinMs: number;
  readonly fixtures: Fixtures;
}

/** Lazily found records of the mod's world that op cases need (a player, a squad, a pack, …). */
export interface Fixtures {
  get<T>(name: string, find: () => Promise<T>): Promise<T>;
}

export interface ModCase {
  id: string;
  op: string | null;
  /** `§6.1`, `§4.6`, …: where PROTOCOL.md states the rule. */
  section: string;
  /**
   * Cases whose result this one builds on (the shape of a player read, an op it calls first),
   * each running earlier: when one failed this case is not run, naming it; when one was skipped
   * this case is skipped with its reason. A need the run did not select is ignored.
   */
  needs?: readonly string[];
  run(ctx: CaseContext): Promise<string | void>;
}

export function fail(message: string): never {
  throw new CaseFail(message);
}

export function skip(message: string): never {
  throw new CaseSkip(message);
}
