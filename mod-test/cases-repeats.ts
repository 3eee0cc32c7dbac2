/**
 * What a mod must do once however often it is asked or answers: each request is answered
 * exactly once (PROTOCOL §6.2), judged over every answer of the run so far, and an op id
 * repeated on a new link after a redial applies once (§6.4: deduplication survives reconnects).
 */
import { check, expectResult } from './answers.ts';
import { fail, type CaseContext, type ModCase } from './case.ts';
import { coinArgs, coinsOf, opId, PLAYER_ROWS } from './cases-ops.ts';
import { player } from './world-fixtures.ts';

/** How long the harness waits for the answers of the requests this case sends itself. */
const ANSWER_WAIT_MS = 3_000;

/**
 * PROTOCOL §6.2: every `res` of the run so far, on every link, against the request it answers.
 * A few requests of its own first, so a run of this case alone has something to judge.
 */
async function answerOnce(ctx: CaseContext): Promise<string> {
  const link = await ctx.link();
  await Promise.all([1, 2, 3].map(() => ctx.call('server.status', {})));
  // The mod's frames arrive in order: past the pong, any second answer it sent has arrived too.
  await link.ping(ANSWER_WAIT_MS);
  const twice = ctx.links.flatMap((each) => each.answeredTwice);
  const first = twice[0];
  if (first !== undefined) {
    fail(
      `the mod answered ${twice.length} request(s) more than once, first id ${first.id} (${first.op}); it answers each req exactly once, with one res of its id (§6.2): the daemon takes the first and drops the rest as unknown ids`,
    );
  }
  const answers = ctx.links.reduce((sum, each) => sum + each.answeredCount, 0);
  return `each of ${answers} requests answered once`;
}

/** PROTOCOL §6.4: an op id repeated after a redial answers its first result and applies once. */
async function coinsIdempotentRedial(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  const before = await coinsOf(ctx, who);
  const id = opId();
  const first = await expectResult(ctx, 'economy.coins', coinArgs(who, 7), { opId: id });
  await ctx.freshLink();
  const second = await expectResult(ctx, 'economy.coins', coinArgs(who, 7), { opId: id });
  const after = await coinsOf(ctx, who);
  if (after !== before) {
    await expectResult(ctx, 'economy.coins', coinArgs(who, before - after), { opId: opId() }).catch(() => {});
  }
  check(
    after === before + 7,
    `economy.coins sent with op id ${id}, then with the same op id again on a new link after a redial, moved the balance from ${before} to ${after}; a mod remembers the op ids it applied across reconnects and applies each once (§6.4)`,
  );
  check(
    JSON.stringify(second) === JSON.stringify(first),
    `the repeat of op id ${id} after a redial answered ${JSON.stringify(second)}, not the first result ${JSON.stringify(first)} (§6.4)`,
  );
  return 'applied once across a redial, the repeat answered the first result';
}

/** `game.coins-idempotent-redial` joins the game behaviours; `op.answer-once` judges the run. */
export function repeatCases(): ModCase[] {
  return [
    {
      id: 'game.coins-idempotent-redial',
      op: 'economy.coins',
      section: '§6.4',
      needs: [PLAYER_ROWS, 'op.players.get', 'op.economy.coins'],
      run: coinsIdempotentRedial,
    },
  ];
}

export function answerOnceCase(): ModCase {
  return { id: 'op.answer-once', op: null, section: '§6.2', run: answerOnce };
}
