/**
 * Paging judged whole (PROTOCOL §6.1, "Paging"): for every list op, small pages followed by
 * `next` must together list exactly the rows one larger page lists, in the same order, none
 * twice (page 2 repeating a row of page 1) and none left out. The larger page is the op's
 * largest, limit 100; the comparison covers its first rows. A listing that changes meanwhile
 * (the game writes history and ledger rows of its own) is read again rather than judged.
 */
import { expectResult } from './answers.ts';
import { fail, skip, type CaseContext, type ModCase } from './case.ts';
import { player, ref, squad } from './world-fixtures.ts';

type Row = Record<string, unknown>;
type Page = { data: Row[]; next: string | null };

/** The list ops and the arguments each needs besides `after` and `limit`. */
const LIST_OPS: ReadonlyArray<[string, (ctx: CaseContext) => Promise<Row>]> = [
  ['players.list', () => Promise.resolve({})],
  ['players.violations', async (ctx) => ({ ref: ref(await player(ctx)) })],
  ['bases.list', () => Promise.resolve({})],
  ['vehicles.list', () => Promise.resolve({})],
  ['containers.list', () => Promise.resolve({})],
  ['squads.list', () => Promise.resolve({})],
  ['squads.bases', async (ctx) => ({ id: String((await squad(ctx))['id']) })],
  ['squads.vehicles', async (ctx) => ({ id: String((await squad(ctx))['id']) })],
  ['squads.containers', async (ctx) => ({ id: String((await squad(ctx))['id']) })],
  ['packs.list', () => Promise.resolve({})],
  ['packs.deliveries', () => Promise.resolve({})],
  ['claim_codes.list', () => Promise.resolve({})],
  ['economy.transactions', () => Promise.resolve({})],
  ['commands.history', () => Promise.resolve({})],
];

const WHOLE = 100;
const MAX_PAGES = 4;
/** Reads of a listing that changed while it was paged, before the case gives up judging it. */
const ATTEMPTS = 3;
const ID_FIELDS = ['id', 'entity_id', 'flag_id', 'platform_id', 'code'];

/** A row's identity: its id field, or the whole row where it has none (command history). */
function rowKey(row: Row): string {
  const field = ID_FIELDS.find((name) => typeof row[name] === 'string' || typeof row[name] === 'number');
  return field === undefined ? JSON.stringify(row) : `${field} ${String(row[field])}`;
}

/** Pages of `limit` from the first, up to MAX_PAGES or `want` rows, with each row's page. */
async function walk(ctx: CaseContext, op: string, args: Row, limit: number, want: number) {
  const rows: Array<{ key: string; page: number }> = [];
  let after: string | null = null;
  for (let page = 1; page <= MAX_PAGES && rows.length < want; page++) {
    const answer: Page = await expectResult<Page>(ctx, op, { ...args, after, limit });
    rows.push(...answer.data.map((row) => ({ key: rowKey(row), page })));
    if (answer.next === null) return { rows, ended: page };
    after = answer.next;
  }
  return { rows, ended: null };
}

/** What is wrong with the paged rows against the whole listing's first rows, or null. */
function pagingProblem(
  op: string,
  limit: number,
  whole: readonly string[],
  paged: { rows: Array<{ key: string; page: number }>; ended: number | null },
): string | null {
  const { rows } = paged;
  const rule = `pages together list every row once, in the op's order (§6.1 "Paging")`;
  for (const [i, row] of rows.entries()) {
    const earlier = rows.slice(0, i).find((other) => other.key === row.key);
    if (earlier !== undefined) {
      return `${op} with limit ${limit}: page ${row.page} repeats the row ${row.key} of page ${earlier.page}; ${rule}`;
    }
    if (i >= whole.length)
      return `${op} with limit ${limit} lists ${row.key} past the ${whole.length} rows one page of limit ${WHOLE} lists; ${rule}`;
    if (row.key !== whole[i]) {
      const skipped = !rows.some((other) => other.key === whole[i]);
      return skipped
        ? `${op} with limit ${limit} skips the row ${whole[i]} (row ${i + 1} of one page of limit ${WHOLE}): page ${row.page} goes on with ${row.key}; ${rule}`
        : `${op} with limit ${limit} lists ${row.key} as row ${i + 1}, where one page of limit ${WHOLE} lists ${whole[i]}; ${rule}`;
    }
  }
  if (paged.ended !== null && rows.length < whole.length) {
    return `${op} with limit ${limit} answered next nil on page ${paged.ended} after ${rows.length} rows, but one page of limit ${WHOLE} lists ${whole.length}; ${rule}`;
  }
  return null;
}

function pagesCase(op: string, extra: (ctx: CaseContext) => Promise<Row>): ModCase {
  const run = async (ctx: CaseContext): Promise<string> => {
    const args = await extra(ctx);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const first = await expectResult<Page>(ctx, op, { ...args, after: null, limit: WHOLE });
      const whole = first.data.map(rowKey);
      if (whole.length < 2) skip(`${op} lists ${whole.length} row(s) here: paging needs two`);
      const limit = Math.max(1, Math.min(5, Math.floor(whole.length / 3)));
      const paged = await walk(ctx, op, args, limit, whole.length);
      const problem = pagingProblem(op, limit, whole, paged);
      if (problem === null)
        return `${paged.rows.length} rows in pages of ${limit} match one page of ${WHOLE}`;
      const again = await expectResult<Page>(ctx, op, { ...args, after: null, limit: WHOLE });
      // Rows that moved while paging prove nothing; a listing that stood still is judged.
      if (JSON.stringify(again.data.map(rowKey)) === JSON.stringify(whole)) fail(problem);
    }
    return skip(
      `${op} changed while it was paged, ${ATTEMPTS} times over, so its paging could not be judged`,
    );
  };
  return { id: `op.${op}.pages`, op, section: '§6.1', needs: [`op.${op}`], run };
}

export function pageCases(): ModCase[] {
  return LIST_OPS.map(([op, extra]) => pagesCase(op, extra));
}
