/**
 * The documented op errors (PROTOCOL §6.1–§6.3): an op the mod does not know is `unsupported`;
 * arguments the op's schema refuses are `invalid` with `details.issues`; an unknown player,
 * record or code is `not_found`; an argument the mod does not know is ignored (§2.1); and a mod
 * that gives up at a request's deadline answers `timeout`, never `internal` (§6.3).
 */
import { argsSchema } from '../protocol/ops/compiled.ts';
import { OPS, type OpName } from '../protocol/ops/index.ts';
import { check, describeAnswer, expectError, expectResult } from './answers.ts';
import { fail, skip, type CaseContext, type ModCase } from './case.ts';
import { HARNESS_ACTOR, UNKNOWN_ID, UNKNOWN_PLATFORM_ID } from './world-fixtures.ts';

type Row = Record<string, unknown>;

const unknownRef = { ref: { platform_id: UNKNOWN_PLATFORM_ID } };

/** The not_found cases: an op, arguments naming nothing, and what is unknown. */
const NOT_FOUND: ReadonlyArray<[OpName, Row, string]> = [
  ['players.get', unknownRef, 'a platform id no player has'],
  ['players.inventory', unknownRef, 'a platform id no player has'],
  ['players.ips', unknownRef, 'a platform id no player has'],
  ['players.unlink', { ...unknownRef, actor: HARNESS_ACTOR }, 'a platform id no player has'],
  ['bases.get', { flag_id: UNKNOWN_ID }, 'a flag id no base has'],
  ['vehicles.get', { entity_id: UNKNOWN_ID }, 'an entity id no vehicle has'],
  ['containers.get', { entity_id: UNKNOWN_ID }, 'an entity id no container has'],
  ['squads.get', { id: UNKNOWN_ID }, 'an id no squad has'],
  ['packs.get', { id: UNKNOWN_ID }, 'an id no pack has'],
  ['claim_codes.revoke', { code: 'MODTEST-NO-SUCH-CODE', actor: HARNESS_ACTOR }, 'a code nobody minted'],
];

function notFoundCases(): ModCase[] {
  return NOT_FOUND.map(([op, args, what]) => ({
    id: `op.${op}.not_found`,
    op,
    section: '§6.3',
    run: (ctx: CaseContext) => expectError(ctx, op, args, 'not_found', `${op} for ${what}`),
  }));
}

/**
 * Arguments op's schema refuses: `limit: 0` for a list op, else the first required field with a
 * value of the wrong type. Null when the op takes no arguments (nothing can be wrong).
 */
export function invalidArgs(op: OpName): Row | null {
  const shape = (OPS[op].args as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const fields = Object.keys(shape);
  if (fields.length === 0) return null;
  const candidate: Row = fields.includes('limit')
    ? { after: null, limit: 0 }
    : { [fields[0] as string]: 12345 };
  return argsSchema(op).safeParse(candidate).success ? null : candidate;
}

function invalidCases(): ModCase[] {
  return (Object.keys(OPS) as OpName[]).flatMap((op) => {
    const args = invalidArgs(op);
    if (args === null) return [];
    return [
      {
        id: `op.${op}.invalid`,
        op,
        section: '§6.2',
        run: async (ctx: CaseContext) => {
          const answer = await ctx.call(op, args);
          if (answer.kind === 'error' && answer.error.code === 'unsupported') {
            skip(`the mod does not implement ${op} (it answered unsupported, which §6.1 allows)`);
          }
          if (answer.kind !== 'error' || answer.error.code !== 'invalid') {
            fail(
              `${op} with arguments its schema refuses (${JSON.stringify(args)}): expected the op error invalid, but ${describeAnswer(op, answer)}`,
            );
          }
          const issues = answer.error.details?.['issues'];
          check(
            Array.isArray(issues) && issues.length > 0,
            `${op} answered invalid without details.issues, a list of {path, message} (§6.2)`,
          );
          return `invalid with ${(issues as unknown[]).length} issue(s)`;
        },
      },
    ];
  });
}

const GENERAL: ModCase[] = [
  {
    id: 'op.unknown.unsupported',
    op: null,
    section: '§6.1',
    run: (ctx) =>
      expectError(
        ctx,
        'modtest.no_such_op',
        {},
        'unsupported',
        'an op the mod does not know (modtest.no_such_op)',
      ),
  },
  {
    id: 'op.args.unknown-field-ignored',
    op: 'server.status',
    section: '§2.1',
    run: async (ctx) => {
      await expectResult(ctx, 'server.status', { modtest_future_argument: 1 });
      return 'an argument the mod does not know was ignored';
    },
  },
  {
    id: 'op.deadline.timeout-not-internal',
    op: 'server.status',
    section: '§6.3',
    run: async (ctx) => {
      const answer = await ctx.call('server.status', {}, { deadlineMs: 1 });
      if (answer.kind === 'error' && answer.error.code !== 'timeout') {
        fail(
          `server.status with deadline_ms 1 answered ${answer.error.code}; a mod that gives up at the deadline answers timeout, never ${answer.error.code} (§6.3)`,
        );
      }
      if (answer.kind === 'lost') fail(describeAnswer('server.status', answer));
      return answer.kind === 'ok'
        ? 'answered in time'
        : answer.kind === 'late'
          ? 'stayed silent (allowed)'
          : 'answered timeout';
    },
  },
];

export function errorCases(): ModCase[] {
  return [...GENERAL, ...notFoundCases(), ...invalidCases()];
}
