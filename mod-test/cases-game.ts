/**
 * The game behaviours the API promises and the simulator defines, checked through the ops:
 * mute rounding, ban caps and permanent bans (docs/players.md, "Durations"), cash and gold in
 * both modes, coins applied once per op id (PROTOCOL §6.4), `applied` before `res` (§6.5), a
 * command catalogue that may load slowly (`unavailable` until it is built, §6.3), claim codes and
 * pack delivery outcomes (docs/packs.md, "Delivery status"). Each undoes what it changed where
 * the protocol has the inverse op.
 */
import { check, expectError, expectResult, judgeResult } from './answers.ts';
import type { CaseContext, ModCase } from './case.ts';
import { banCaps } from './cases-caps.ts';
import {
  banArgs,
  coinArgs,
  coinsOf,
  currencyArgs,
  mintCode,
  muteArgs,
  opId,
  PLAYER_ROWS,
  revokeCode,
} from './cases-ops.ts';
import {
  HARNESS_ACTOR,
  loadedCatalog,
  onlinePlayer,
  pack,
  player,
  ref,
  UNKNOWN_PLATFORM_ID,
} from './world-fixtures.ts';

type Row = Record<string, unknown>;

/**
 * PROTOCOL §6.6 (docs/players.md "Durations"): a temporary mute is rounded up to the next whole
 * hour. Each mute is lifted before the next; a mod without `players.unmute` gets the first check
 * only, and the note names the ones not run.
 */
async function muteRounding(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  const checks = [
    [90, 120],
    [1, 60],
    [60, 60],
  ] as const;
  const done: string[] = [];
  for (const [asked, expected] of checks) {
    const result = await expectResult<{ mute: Row }>(ctx, 'players.mute', muteArgs(who, asked, 'minutes'));
    check(
      result.mute['duration_minutes'] === expected,
      `a mute of ${asked} minutes answered duration_minutes ${String(result.mute['duration_minutes'])}; the game rounds a temporary mute up to the next whole hour (${expected}) (§6.6)`,
    );
    done.push(`${asked} → ${expected}`);
    const lifted = await ctx.call(
      'players.unmute',
      { ref: ref(who), actor: HARNESS_ACTOR },
      { opId: opId() },
    );
    if (lifted.kind === 'error' && lifted.error.code === 'unsupported') {
      const left = checks.slice(done.length).map(([a, e]) => `${a} → ${e}`);
      return `${done.join(', ')} minutes; not run: ${left.join(', ')}, since the mod does not implement players.unmute, which lifts each mute before the next (the ${asked}-minute mute stays until it ends)`;
    }
    judgeResult('players.unmute', lifted);
  }
  return `${done.join(', ')} minutes`;
}

async function permanentBan(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  const result = await expectResult<{ ban: Row }>(ctx, 'players.ban', banArgs(who, null, 'days', true));
  check(
    result.ban['banned'] === true && result.ban['permanent'] === true,
    'a permanent ban answered permanent false',
  );
  check(
    result.ban['expires_at'] === null,
    `a permanent ban answered expires_at ${String(result.ban['expires_at'])}, not null`,
  );
  const lifted = await expectResult<{ ban: Row }>(ctx, 'players.unban', {
    ref: ref(who),
    actor: HARNESS_ACTOR,
  });
  check(lifted.ban['banned'] === false, 'players.unban left the permanent ban in place');
  return 'permanent, expires_at null, lifted by unban';
}

/** docs/economy.md: cash changes by delta or is set; `balance` reads it back. */
async function currencyModes(ctx: CaseContext): Promise<string> {
  const who = await onlinePlayer(ctx);
  const delta = await expectResult<{ balance_before: Row; balance: Row | null }>(
    ctx,
    'economy.currency',
    currencyArgs(who, 'delta', 10),
  );
  const before = Number(delta.balance_before['cash']);
  if (delta.balance !== null) {
    check(
      delta.balance['cash'] === before + 10,
      `a delta of 10 cash answered balance.cash ${String(delta.balance['cash'])} after ${before}`,
    );
  }
  const set = await expectResult<{ balance: Row | null }>(
    ctx,
    'economy.currency',
    currencyArgs(who, 'set', before),
  );
  if (set.balance !== null) {
    check(
      set.balance['cash'] === before,
      `setting cash to ${before} answered balance.cash ${String(set.balance['cash'])}`,
    );
  }
  return 'delta +10, then set back';
}

/** PROTOCOL §6.4: the same op id twice applies once and answers the first result again. */
async function coinsIdempotent(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  const before = await coinsOf(ctx, who);
  const id = opId();
  const first = await expectResult(ctx, 'economy.coins', coinArgs(who, 7), { opId: id });
  const second = await expectResult(ctx, 'economy.coins', coinArgs(who, 7), { opId: id });
  const after = await coinsOf(ctx, who);
  await expectResult(ctx, 'economy.coins', coinArgs(who, -(after - before)), { opId: opId() }).catch(
    () => {},
  );
  check(
    after === before + 7,
    `economy.coins sent twice with op id ${id} moved the balance from ${before} to ${after}; a repeated op id must apply once (§6.4)`,
  );
  check(
    JSON.stringify(second) === JSON.stringify(first),
    `the repeat of op id ${id} answered ${JSON.stringify(second)}, not the first result ${JSON.stringify(first)} (§6.4)`,
  );
  return 'applied once, the repeat answered the first result';
}

async function coinsOverdraw(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  const balance = await coinsOf(ctx, who);
  return expectError(
    ctx,
    'economy.coins',
    coinArgs(who, -(balance + 1)),
    'conflict',
    'a debit above the balance',
  );
}

/** PROTOCOL §6.5: an `applied` notice, when sent, comes before its `res`; a read never has one. */
async function appliedNotice(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  const answer = await ctx.call('economy.coins', coinArgs(who, 1), { opId: opId() });
  judgeResult('economy.coins', answer);
  await expectResult(ctx, 'economy.coins', coinArgs(who, -1), { opId: opId() });
  return answer.applied ? 'applied, then res' : 'no applied notice (allowed, §6.5 rule 4)';
}

/** PROTOCOL §6.3: a catalogue still loading is `unavailable`, then answers once built. */
async function catalogLoading(ctx: CaseContext): Promise<string> {
  const catalog = await loadedCatalog(ctx);
  check(catalog.data.length > 0, 'commands.catalog answered an empty catalogue once loaded');
  return catalog.waitedMs > 0
    ? `loaded after ${catalog.waitedMs} ms of unavailable`
    : `${catalog.data.length} verbs at once`;
}

async function claimCodes(ctx: CaseContext): Promise<string> {
  const code = await mintCode(ctx);
  const packId = String((await pack(ctx))['id']);
  const listed = await expectResult<{ data: Row[] }>(ctx, 'claim_codes.list', {
    pack_id: packId,
    status: 'active',
    after: null,
    limit: 100,
  });
  const row = listed.data.find((entry) => entry['code'] === code);
  check(
    row !== undefined,
    `the code ${code} just minted is not among the pack's active codes (claim_codes.list, newest first)`,
  );
  await revokeCode(ctx, code);
  const revoked = await expectResult<{ data: Row[] }>(ctx, 'claim_codes.list', {
    pack_id: packId,
    status: 'revoked',
    after: null,
    limit: 100,
  });
  check(
    revoked.data.some((entry) => entry['code'] === code),
    `the code ${code} revoked is not among the pack's revoked codes`,
  );
  return 'minted, listed active, revoked, listed revoked';
}

const DELIVERED = new Set(['completed', 'partial', 'ledger_failed']);

/** docs/packs.md "Delivery status": `delivered` says whether anything reached the player. */
async function packDelivery(ctx: CaseContext): Promise<string> {
  const [row, who] = [await pack(ctx), await player(ctx)];
  const args = (target: string) => ({
    pack_id: String(row['id']),
    player: { platform_id: target },
    quantity: 1,
    actor: HARNESS_ACTOR,
  });
  const result = await expectResult(ctx, 'packs.deliver', args(String(who['platform_id'])));
  const status = String(result['status']);
  check(
    result['delivered'] === DELIVERED.has(status),
    `packs.deliver answered status ${status} with delivered ${String(result['delivered'])}; delivered is true exactly for completed, partial and ledger_failed`,
  );
  const history = await expectResult<{ data: Row[] }>(ctx, 'packs.deliveries', {
    platform_id: who['platform_id'],
    after: null,
    limit: 100,
  });
  check(
    history.data.some((entry) => entry['id'] === result['purchase_id']),
    `packs.deliver answered purchase_id ${String(result['purchase_id'])}, which the player's delivery history does not hold`,
  );
  const nobody = await expectResult(ctx, 'packs.deliver', args(UNKNOWN_PLATFORM_ID));
  check(
    nobody['status'] === 'failed' && nobody['delivered'] === false,
    `a delivery to a platform id the game never saw answered status ${String(nobody['status'])}, delivered ${String(nobody['delivered'])}; nothing lands: failed, false`,
  );
  return `${status} to a player, failed to a stranger`;
}

const GAME: ReadonlyArray<[string, string | null, string, (ctx: CaseContext) => Promise<string>]> = [
  ['game.catalog-loading', 'commands.catalog', '§6.3', catalogLoading],
  ['game.mute-rounding', 'players.mute', '§6.6', muteRounding],
  ['game.ban-caps', 'players.ban', '§6.6', banCaps],
  ['game.ban-permanent', 'players.ban', '§6.1', permanentBan],
  ['game.currency-modes', 'economy.currency', '§6.1', currencyModes],
  ['game.coins-idempotent', 'economy.coins', '§6.4', coinsIdempotent],
  ['game.coins-overdraw', 'economy.coins', '§6.3', coinsOverdraw],
  ['game.applied', 'economy.coins', '§6.5', appliedNotice],
  ['game.claim-codes', 'claim_codes.mint', '§6.1', claimCodes],
  ['game.pack-delivery', 'packs.deliver', '§6.1', packDelivery],
];

/** The cases each game case builds on (`ModCase.needs`): the op cases of the ops it calls first. */
const GAME_NEEDS: Readonly<Record<string, readonly string[]>> = {
  'game.catalog-loading': ['op.commands.catalog'],
  'game.mute-rounding': [PLAYER_ROWS, 'op.players.mute'],
  'game.ban-caps': [PLAYER_ROWS, 'op.players.ban'],
  'game.ban-permanent': [PLAYER_ROWS, 'op.players.ban'],
  'game.currency-modes': [PLAYER_ROWS, 'op.economy.currency'],
  'game.coins-idempotent': [PLAYER_ROWS, 'op.players.get', 'op.economy.coins'],
  'game.coins-overdraw': [PLAYER_ROWS, 'op.players.get', 'op.economy.coins'],
  'game.applied': ['op.economy.coins'],
  'game.claim-codes': ['op.claim_codes.mint', 'op.claim_codes.list'],
  'game.pack-delivery': ['op.packs.deliver'],
};

export function gameCases(): ModCase[] {
  return GAME.map(([id, op, section, run]) => ({ id, op, section, needs: GAME_NEEDS[id] ?? [], run }));
}
