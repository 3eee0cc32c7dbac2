/**
 * Fault injection: the simulator asks its FaultPlan before answering each op, and misbehaves as
 * the first matching rule says. A rule names an op (or `*` for every op) and one action:
 *
 * - `delay` answer normally after `ms` milliseconds
 * - `hang` never answer, not even at the deadline (the daemon's deadline fires: 504)
 * - `error` answer with OpError(code, message)
 * - `drop` close the link instead of answering (503)
 * - `garbage` send raw bytes that are not a valid frame instead of answering
 * - `invalid-result` answer with a result that breaks the op's result schema (the daemon's 502)
 *
 * `times: n` makes a rule expire after n uses; `afterApply: true` asks a mutating op to apply its
 * change first and then fault, which is how tests prove "mutation applied" on a 503/504.
 *
 * Matching: a rule naming the op exactly wins over a `*` rule; among equals, the oldest wins.
 *
 * CLI form (`modgate sim --fault SPEC`, repeatable): `OP=ACTION[,after-apply][,times:N]` with
 * ACTION one of `delay:MS` (also `500ms`, `2s`), `hang`, `error:CODE[:MESSAGE]`, `drop`,
 * `garbage`, `invalid-result`; a MESSAGE cannot contain commas. Examples: `server.status=delay:2000`, `*=hang`,
 * `players.ban=drop,after-apply,times:1`, `packs.deliver=error:conflict:server too old`.
 */
import { OP_ERROR_CODES } from '../protocol/ops/index.ts';
import type { OpErrorCode } from '../protocol/ops/index.ts';

export type FaultAction =
  | { kind: 'delay'; ms: number }
  | { kind: 'hang' }
  | { kind: 'error'; code: OpErrorCode; message: string }
  | { kind: 'drop' }
  | { kind: 'garbage' }
  | { kind: 'invalid-result' };

export type FaultRule = FaultAction & {
  /** An op name such as `server.status`, or `*` for every op. */
  op: string;
  /** Uses before the rule expires; omit for a rule that never expires. */
  times?: number;
  /** For mutating ops: apply the change, then fault. */
  afterApply?: boolean;
};

export class FaultSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

const OP_NAME = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;

/** Checks a rule's fields; throws FaultSpecError naming the first problem. */
export function validateFaultRule(rule: FaultRule, knownOps?: readonly string[]): FaultRule {
  if (rule.op !== '*' && !OP_NAME.test(rule.op)) {
    throw new FaultSpecError(`op '${rule.op}' is not '*' or a dotted op name like 'server.status'`);
  }
  if (rule.op !== '*' && knownOps !== undefined && !knownOps.includes(rule.op)) {
    throw new FaultSpecError(`unknown op '${rule.op}' (known: ${knownOps.join(', ')})`);
  }
  if (rule.times !== undefined && (!Number.isSafeInteger(rule.times) || rule.times < 1)) {
    throw new FaultSpecError(`times must be a positive integer, got ${String(rule.times)}`);
  }
  if (rule.kind === 'delay' && (!Number.isSafeInteger(rule.ms) || rule.ms < 0 || rule.ms > MAX_DELAY_MS)) {
    throw new FaultSpecError(`delay must be 0 to ${MAX_DELAY_MS} ms, got ${String(rule.ms)}`);
  }
  if (rule.kind === 'error' && !(OP_ERROR_CODES as readonly string[]).includes(rule.code)) {
    throw new FaultSpecError(`unknown error code '${rule.code}' (known: ${OP_ERROR_CODES.join(', ')})`);
  }
  return rule;
}

interface Entry {
  rule: Readonly<FaultRule>;
  remaining: number;
}

export class FaultPlan {
  #entries: Entry[] = [];

  constructor(rules: readonly FaultRule[] = []) {
    for (const rule of rules) this.add(rule);
  }

  /** Adds a rule after the existing ones. */
  add(rule: FaultRule): void {
    validateFaultRule(rule);
    this.#entries.push({
      rule: Object.freeze({ ...rule }),
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
    });
  }

  /** Removes every rule. */
  clear(): void {
    this.#entries = [];
  }

  /** The rules still in force, each with its remaining uses as `times`. */
  rules(): FaultRule[] {
    return this.#entries.map(({ rule, remaining }) =>
      Number.isFinite(remaining) ? { ...rule, times: remaining } : { ...rule },
    );
  }

  /** The rule to apply to one call of `opName` (using it up once), or undefined to answer normally. */
  take(opName: string): Readonly<FaultRule> | undefined {
    const entry =
      this.#entries.find((e) => e.rule.op === opName) ?? this.#entries.find((e) => e.rule.op === '*');
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#entries.splice(this.#entries.indexOf(entry), 1);
    return entry.rule;
  }
}

const USAGE = "expected OP=ACTION[,after-apply][,times:N], e.g. 'server.status=delay:2000'";

function fail(spec: string, reason: string): never {
  throw new FaultSpecError(`invalid --fault '${spec}': ${reason}; ${USAGE}`);
}

function parseDuration(spec: string, text: string): number {
  const match = /^(\d{1,9})(ms|s)?$/.exec(text);
  if (match === null) fail(spec, `delay '${text}' is not a whole number of milliseconds (or '2s')`);
  return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
}

function parseAction(spec: string, text: string): FaultAction {
  const [kind = '', ...rest] = text.split(':');
  const arg = rest.join(':');
  switch (kind) {
    case 'delay':
      if (arg === '') fail(spec, 'delay needs a duration, as in delay:2000');
      return { kind, ms: parseDuration(spec, arg) };
    case 'error': {
      const [code = '', ...message] = rest;
      if (!(OP_ERROR_CODES as readonly string[]).includes(code)) {
        fail(spec, `error needs one of the codes ${OP_ERROR_CODES.join(', ')}, as in error:conflict`);
      }
      return { kind, code: code as OpErrorCode, message: message.join(':') || `injected fault (${code})` };
    }
    case 'hang':
    case 'drop':
    case 'garbage':
    case 'invalid-result':
      if (rest.length > 0) fail(spec, `${kind} takes no argument`);
      return { kind };
    default:
      return fail(spec, `unknown action '${kind}' (delay, hang, error, drop, garbage, invalid-result)`);
  }
}

function applyModifier(spec: string, rule: FaultRule, text: string): void {
  if (text === 'after-apply') {
    rule.afterApply = true;
    return;
  }
  const times = /^times:(\d{1,9})$/.exec(text);
  if (times === null) fail(spec, `unknown modifier '${text}' (after-apply, times:N)`);
  rule.times = Number(times[1]);
}

/** Parses the CLI form; `knownOps` (optional) rejects op names the catalogue lacks. */
export function parseFaultSpec(spec: string, knownOps?: readonly string[]): FaultRule {
  const eq = spec.indexOf('=');
  if (eq <= 0) fail(spec, "missing 'OP='");
  const op = spec.slice(0, eq).trim();
  const [action = '', ...modifiers] = spec.slice(eq + 1).split(',');
  if (action.trim() === '') fail(spec, 'missing action after =');
  const rule: FaultRule = { op, ...parseAction(spec, action.trim()) };
  for (const modifier of modifiers) applyModifier(spec, rule, modifier.trim());
  try {
    return validateFaultRule(rule, knownOps);
  } catch (error) {
    return fail(spec, (error as Error).message);
  }
}
