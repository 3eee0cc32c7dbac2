/**
 * Judging one answer of the mod (PROTOCOL §6.2–§6.3): a result must pass the op's result schema
 * (the catalogue's zod schema, from which `ops.schema.json` is generated, so the two agree), an
 * error must carry a code of §6.3, and `unsupported` is a skip that names the op (§6.1). Every
 * failure is a sentence for the mod's author, with the op and what was expected.
 */
import { OP_ERROR_CODES, isOpName } from '../protocol/ops/index.ts';
import { resultSchema } from '../protocol/ops/compiled.ts';
import { fail, skip, type CallOptions, type CaseContext } from './case.ts';
import type { CallAnswer } from './harness-link.ts';

/** Describes an answer that is not what the case wanted. */
export function describeAnswer(op: string, answer: CallAnswer): string {
  switch (answer.kind) {
    case 'ok':
      return `${op} answered a result`;
    case 'error':
      return `${op} answered the error ${answer.error.code} (${answer.error.message.slice(0, 200)})`;
    case 'late':
      return `${op} did not answer within its deadline (${answer.ms} ms): the daemon would answer 504`;
    case 'lost':
      return `${op} got no answer: ${answer.why}`;
  }
}

/** Issues of zod as `path: message`, at most five. */
export function schemaProblems(op: string, result: unknown): string | null {
  if (!isOpName(op)) return null;
  const parsed = resultSchema(op).safeParse(result);
  if (parsed.success) return null;
  const issues = parsed.error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.') || '(the result)';
    return `${path}: ${issue.message}`;
  });
  return issues.join('; ');
}

/** Calls op and returns its result once it passes the result schema; fails or skips otherwise. */
export async function expectResult<T = Record<string, unknown>>(
  ctx: CaseContext,
  op: string,
  args: unknown,
  options: CallOptions = {},
): Promise<T> {
  return judgeResult<T>(op, await ctx.call(op, args, options));
}

/** The result of `answer` once it passes op's result schema; fails or skips otherwise. */
export function judgeResult<T = Record<string, unknown>>(op: string, answer: CallAnswer): T {
  if (answer.kind === 'error' && answer.error.code === 'unsupported') {
    skip(`the mod does not implement ${op} (it answered unsupported, which §6.1 allows)`);
  }
  if (answer.kind !== 'ok') fail(describeAnswer(op, answer));
  const problems = schemaProblems(op, answer.result);
  if (problems !== null)
    fail(`${op} answered a result that breaks its schema in ops.schema.json: ${problems}`);
  return answer.result as T;
}

/** Calls op and expects the op error `code`; `unsupported` from the mod is a skip. */
export async function expectError(
  ctx: CaseContext,
  op: string,
  args: unknown,
  code: string,
  why: string,
): Promise<string> {
  const answer = await ctx.call(op, args);
  if (answer.kind === 'error' && answer.error.code === code) return `${why}: ${code}`;
  if (answer.kind === 'error' && answer.error.code === 'unsupported' && code !== 'unsupported') {
    skip(`the mod does not implement ${op} (it answered unsupported, which §6.1 allows)`);
  }
  if (answer.kind === 'error' && !(OP_ERROR_CODES as readonly string[]).includes(answer.error.code)) {
    fail(`${why}: expected ${code}, got ${answer.error.code}, which is not an op error code of §6.3`);
  }
  return fail(`${why}: expected the op error ${code}, but ${describeAnswer(op, answer)}`);
}

/** Fails with `message` unless `condition` holds. */
export function check(condition: boolean, message: string): void {
  if (!condition) fail(message);
}
