/**
 * Where a write comes from (PROTOCOL §6.6, "Where a write comes from"): the write actor's optional
 * `source`, `panel` for the operator's panel, `group` for a sanction applied from the daemon's
 * group, and `api` (or absent) for a bot through /v1. A mod
 * accepts a write that carries it and one that does not (an optional field it may not know is
 * ignored, §2.1), and reports the source it was given where the wire shows one: the violation a
 * ban writes and the ledger entry a coin change writes. Nothing else is judged: a command history
 * entry carries no source on the wire, and claim codes are `panel` whatever the field says.
 */
import { check, describeAnswer, judgeResult } from './answers.ts';
import { fail, type CaseContext, type ModCase } from './case.ts';
import { banArgs, coinArgs, opId, PLAYER_ROWS, unban } from './cases-ops.ts';
import { HARNESS_ACTOR, player, ref } from './world-fixtures.ts';

type Row = Record<string, unknown>;
type Source = 'panel' | 'group' | undefined;

/**
 * The bans the violation case sends: one the panel made, one applied from the daemon's group, one
 * from before the field (absent: api).
 */
const SOURCES: readonly Source[] = ['panel', 'group', undefined];

/** How many of the newest rows the read back searches for the harness's own. */
const READ_BACK = 20;

function actorWith(source: Source): Row {
  return source === undefined ? { ...HARNESS_ACTOR } : { ...HARNESS_ACTOR, source };
}

function sentAs(source: Source): string {
  return source === undefined ? 'without actor.source' : `with actor.source "${source}"`;
}

/** A reason no other write has, so the read back finds this write's own row. */
function markedReason(source: Source): string {
  return `modgate mod test: source ${source ?? 'absent'} ${opId()}`;
}

/**
 * Sends the write op and returns its result. A mod that refuses the actor's `source` as `invalid`
 * (a strict schema written before the field) is told why that is wrong, not only what it answered.
 */
async function write(ctx: CaseContext, op: string, args: Row, source: Source): Promise<Row> {
  const answer = await ctx.call(op, args, { opId: opId() });
  if (source !== undefined && answer.kind === 'error' && answer.error.code === 'invalid') {
    fail(
      `${op} ${sentAs(source)} was refused: ${describeAnswer(op, answer)}; source is an optional field of the write actor (§6.6 "Where a write comes from"), and a mod that does not know a field ignores it (§2.1), so the write must succeed`,
    );
  }
  return judgeResult<Row>(op, answer);
}

/**
 * Reads `op`'s newest rows back and returns the one whose `reason` is `reason`, or null when the
 * mod lacks the read op (the write was accepted; only the report goes unchecked).
 */
async function readBack(ctx: CaseContext, op: string, args: Row, reason: string): Promise<Row | null> {
  const answer = await ctx.call(op, { ...args, after: null, limit: READ_BACK });
  if (answer.kind === 'error' && answer.error.code === 'unsupported') return null;
  const page = judgeResult<{ data: Row[] }>(op, answer);
  const row = page.data.find((entry) => entry['reason'] === reason);
  if (row === undefined)
    fail(`${op} does not list the write with reason "${reason}" among its ${READ_BACK} newest rows`);
  return row;
}

function judgeSource(row: Row, what: string, source: Source, where: string): void {
  const expected = source ?? 'api';
  check(
    row['source'] === expected,
    `${what} sent ${sentAs(source)} is recorded in ${where} with source ${JSON.stringify(row['source'])}; a mod records the source it was given, and absent means api (§6.6 "Where a write comes from"), so ${expected}`,
  );
}

/** A ban, with and without the source, each read back from the player's violations, then lifted. */
async function violationSource(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  let unread = false;
  for (const source of SOURCES) {
    const reason = markedReason(source);
    const args = { ...banArgs(who, 1, 'minutes'), reason, actor: actorWith(source) };
    await write(ctx, 'players.ban', args, source);
    try {
      const row = await readBack(ctx, 'players.violations', { ref: ref(who) }, reason);
      if (row === null) unread = true;
      else judgeSource(row, 'a ban', source, 'players.violations');
    } finally {
      await unban(ctx, who);
    }
  }
  return unread
    ? 'the three bans accepted; the source recorded is not checked: the mod does not implement players.violations'
    : 'the three bans accepted, their violations say panel, group and api';
}

/** A coin credit with the source and its debit without, each read back from the ledger. */
async function ledgerSource(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  let unread = false;
  for (const [source, amount] of [
    ['panel', 1],
    [undefined, -1],
  ] as const) {
    const reason = markedReason(source);
    await write(ctx, 'economy.coins', { ...coinArgs(who, amount), reason, actor: actorWith(source) }, source);
    const filter = { platform_id: String(who['platform_id']), asset: 'coins' };
    const row = await readBack(ctx, 'economy.transactions', filter, reason);
    if (row === null) unread = true;
    else judgeSource(row, 'a coin change', source, 'economy.transactions');
  }
  return unread
    ? 'both coin changes accepted; the source recorded is not checked: the mod does not implement economy.transactions'
    : 'both coin changes accepted, their ledger entries say panel and api';
}

export function sourceCases(): ModCase[] {
  return [
    {
      id: 'source.violation',
      op: 'players.ban',
      section: '§6.6',
      needs: [PLAYER_ROWS, 'op.players.ban'],
      run: violationSource,
    },
    {
      id: 'source.ledger',
      op: 'economy.coins',
      section: '§6.6',
      needs: [PLAYER_ROWS, 'op.economy.coins'],
      run: ledgerSource,
    },
  ];
}
