/**
 * One valid call of every op of the catalogue (PROTOCOL §6.1): the result must pass the op's
 * schema in `ops.schema.json` and the semantics the schema cannot say (§6.1 "Paging", "Totals";
 * a read answers the record asked for). Writes are undone where the protocol has the inverse op
 * (a ban is lifted, a mute too, a coin credit debited back); docs/mod-testing.md lists what stays.
 */
import { OPS, type OpName } from '../protocol/ops/index.ts';
import { check, expectResult } from './answers.ts';
import type { CaseContext, ModCase } from './case.ts';
import {
  base,
  container,
  HARNESS_ACTOR,
  HARNESS_REASON,
  linkedPlayer,
  loadedCatalog,
  onlinePlayer,
  pack,
  player,
  readVerb,
  ref,
  squad,
  vehicle,
} from './world-fixtures.ts';

type Row = Record<string, unknown>;
type ValidCall = (ctx: CaseContext) => Promise<string | void>;

const LIMIT = 5;
const page = { after: null, limit: LIMIT };

/** A list op (§6.1 "Paging", "Totals"): at most `limit` rows; the next page keeps the total. */
async function listCall(ctx: CaseContext, op: string, args: Row = {}): Promise<string> {
  const first = await expectResult<{ data: Row[]; next: string | null; total?: number }>(ctx, op, {
    ...page,
    ...args,
  });
  check(
    first.data.length <= LIMIT,
    `${op} answered ${first.data.length} rows for limit ${LIMIT} (§6.1 "Paging")`,
  );
  if (first.next === null) return `${first.data.length} rows, one page`;
  const second = await expectResult<{ data: Row[]; total?: number }>(ctx, op, {
    ...page,
    ...args,
    after: first.next,
  });
  if (first.total !== undefined) {
    check(
      second.total === first.total,
      `${op} answered total ${first.total} on page 1 and ${String(second.total)} on page 2; a total counts every matching row, the same on every page (§6.1 "Totals")`,
    );
  }
  const again = await expectResult<{ data: Row[] }>(ctx, op, { ...page, ...args, after: first.next });
  check(
    JSON.stringify(again.data) === JSON.stringify(second.data),
    `${op} answered other rows for the same after; the same after must give the same rows while the data is unchanged (§6.1 "Paging")`,
  );
  return `${first.data.length} rows, then page 2 by next`;
}

function same(op: string, field: string, got: unknown, want: unknown): void {
  check(
    String(got) === String(want),
    `${op} answered ${field} ${String(got)} when asked for ${String(want)}`,
  );
}

async function readBy(
  ctx: CaseContext,
  op: string,
  args: Row,
  field: string,
  want: unknown,
): Promise<string> {
  const result = await expectResult(ctx, op, args);
  same(op, field, result[field], want);
  return `answered ${field} ${String(want)}`;
}

const playerRead =
  (op: string): ValidCall =>
  async (ctx) => {
    const who = await player(ctx);
    const result = await expectResult(ctx, op, { ref: ref(who) });
    if (op === 'players.get') same(op, 'platform_id', result['platform_id'], who['platform_id']);
    if (op === 'players.moderation') {
      same(op, 'player.platform_id', (result['player'] as Row)['platform_id'], who['platform_id']);
    }
  };

/** The four ops of vehicles or containers: list, get and inventory by entity id, type counts. */
function entityCalls(kind: 'vehicles' | 'containers', fixture: (ctx: CaseContext) => Promise<Row>) {
  return {
    [`${kind}.list`]: (ctx: CaseContext) => listCall(ctx, `${kind}.list`),
    [`${kind}.get`]: async (ctx: CaseContext) => {
      const id = (await fixture(ctx))['entity_id'];
      return readBy(ctx, `${kind}.get`, { entity_id: id }, 'entity_id', id);
    },
    [`${kind}.inventory`]: async (ctx: CaseContext) => {
      await expectResult(ctx, `${kind}.inventory`, { entity_id: (await fixture(ctx))['entity_id'] });
    },
    [`${kind}.types`]: async (ctx: CaseContext) => void (await expectResult(ctx, `${kind}.types`, {})),
  } as Record<`${typeof kind}.${'list' | 'get' | 'inventory' | 'types'}`, ValidCall>;
}

const VALID_CALLS: Record<OpName, ValidCall> = {
  'server.status': async (ctx) => {
    const result = await expectResult(ctx, 'server.status', {});
    return `player_count ${String(result['player_count'])}`;
  },
  'players.list': (ctx) => listCall(ctx, 'players.list'),
  'players.online': async (ctx) => {
    const result = await expectResult<{ online: number; data: Row[] }>(ctx, 'players.online', {});
    check(
      result.online === result.data.length,
      `players.online answered online ${result.online} beside ${result.data.length} rows; online counts the rows of data`,
    );
  },
  'players.get': playerRead('players.get'),
  'players.inventory': playerRead('players.inventory'),
  'players.moderation': playerRead('players.moderation'),
  'players.ips': playerRead('players.ips'),
  'players.violations': async (ctx) => listCall(ctx, 'players.violations', { ref: ref(await player(ctx)) }),
  ...moderationCalls('ban', 'banned', (who) => banArgs(who, 1, 'hours'), unban),
  ...moderationCalls('mute', 'muted', (who) => muteArgs(who, 60, 'minutes'), unmute),
  'players.link': async (ctx) => {
    const who = await linkedPlayer(ctx);
    await expectResult(ctx, 'players.unlink', { ref: ref(who), actor: HARNESS_ACTOR }, { opId: opId() });
    const args = { platform_id: who['platform_id'], social_id: who['social_id'], actor: HARNESS_ACTOR };
    const result = await expectResult<{ player: Row }>(ctx, 'players.link', args, { opId: opId() });
    same('players.link', 'player.social_id', result.player['social_id'], who['social_id']);
    return 'unlinked a player, then linked it to its social id again';
  },
  'players.unlink': async (ctx) => {
    const who = await linkedPlayer(ctx);
    const result = await expectResult<{ player: Row }>(
      ctx,
      'players.unlink',
      { ref: ref(who), actor: HARNESS_ACTOR },
      { opId: opId() },
    );
    check(
      result.player['social_id'] === null,
      'players.unlink answered a player whose social_id is not null',
    );
    const relink = { platform_id: who['platform_id'], social_id: who['social_id'], actor: HARNESS_ACTOR };
    await expectResult(ctx, 'players.link', relink, { opId: opId() });
    return 'unlinked, then linked again';
  },
  'bases.list': (ctx) => listCall(ctx, 'bases.list'),
  'bases.get': async (ctx) => {
    const row = await base(ctx);
    return readBy(ctx, 'bases.get', { flag_id: String(row['flag_id']) }, 'flag_id', row['flag_id']);
  },
  ...entityCalls('vehicles', vehicle),
  ...entityCalls('containers', container),
  'squads.list': (ctx) => listCall(ctx, 'squads.list'),
  'squads.get': async (ctx) => {
    const row = await squad(ctx);
    return readBy(ctx, 'squads.get', { id: String(row['id']) }, 'id', row['id']);
  },
  'squads.members': async (ctx) => {
    await expectResult(ctx, 'squads.members', { id: String((await squad(ctx))['id']) });
  },
  'squads.summary': async (ctx) => {
    const row = await squad(ctx);
    return readBy(ctx, 'squads.summary', { id: String(row['id']) }, 'squad_id', row['id']);
  },
  'squads.bases': async (ctx) => listCall(ctx, 'squads.bases', { id: String((await squad(ctx))['id']) }),
  'squads.vehicles': async (ctx) =>
    listCall(ctx, 'squads.vehicles', { id: String((await squad(ctx))['id']) }),
  'squads.containers': async (ctx) =>
    listCall(ctx, 'squads.containers', { id: String((await squad(ctx))['id']) }),
  'commands.catalog': async (ctx) => {
    const catalog = await loadedCatalog(ctx);
    return `${catalog.data.length} verbs`;
  },
  'commands.history': (ctx) => listCall(ctx, 'commands.history'),
  'commands.execute': async (ctx) => {
    const verb = await readVerb(ctx);
    const args = { verb, args: [], subject: null, actor: HARNESS_ACTOR };
    const result = await expectResult(ctx, 'commands.execute', args, { opId: opId() });
    return `ran ${verb}: success ${String(result['success'])}`;
  },
  'economy.coins': async (ctx) => {
    const who = await player(ctx);
    const before = await coinsOf(ctx, who);
    const result = await expectResult(ctx, 'economy.coins', coinArgs(who, 1), { opId: opId() });
    same('economy.coins', 'balance', result['balance'], before + 1);
    await expectResult(ctx, 'economy.coins', coinArgs(who, -1), { opId: opId() });
    return 'credited 1 coin, then debited it';
  },
  'economy.coins_all': async (ctx) => {
    const args = { amount: 1, reason: HARNESS_REASON, target: 'online', actor: HARNESS_ACTOR };
    const result = await expectResult(ctx, 'economy.coins_all', args, { opId: opId() });
    return `credited 1 coin to ${String(result['affected_count'])} connected players (not undone)`;
  },
  'economy.currency': async (ctx) => {
    const who = await onlinePlayer(ctx);
    const result = await expectResult<{ balance_before: Row; balance: Row | null }>(
      ctx,
      'economy.currency',
      currencyArgs(who, 'delta', 1),
      { opId: opId() },
    );
    if (result.balance !== null) {
      same(
        'economy.currency',
        'balance.cash after a change of 1',
        result.balance['cash'],
        Number(result.balance_before['cash']) + 1,
      );
    }
    await expectResult(ctx, 'economy.currency', currencyArgs(who, 'delta', -1), { opId: opId() });
    return 'changed cash by 1, then by −1';
  },
  'economy.currency_all': async (ctx) => {
    const args = {
      currency: 'cash',
      mode: 'delta',
      amount: 1,
      reason: HARNESS_REASON,
      actor: HARNESS_ACTOR,
      target: 'online',
    };
    await expectResult(ctx, 'economy.currency_all', args, { opId: opId() });
    await expectResult(ctx, 'economy.currency_all', { ...args, amount: -1 }, { opId: opId() });
    return "changed connected players' cash by 1, then by −1";
  },
  'economy.transactions': (ctx) => listCall(ctx, 'economy.transactions'),
  'packs.list': (ctx) => listCall(ctx, 'packs.list'),
  'packs.get': async (ctx) => {
    const row = await pack(ctx);
    return readBy(ctx, 'packs.get', { id: String(row['id']) }, 'id', row['id']);
  },
  'packs.deliveries': (ctx) => listCall(ctx, 'packs.deliveries'),
  'packs.deliver': async (ctx) => {
    const [row, who] = [await pack(ctx), await player(ctx)];
    const args = { pack_id: String(row['id']), player: ref(who), quantity: 1, actor: HARNESS_ACTOR };
    const result = await expectResult(ctx, 'packs.deliver', args, { opId: opId() });
    return `status ${String(result['status'])} (not undone)`;
  },
  'claim_codes.list': (ctx) => listCall(ctx, 'claim_codes.list'),
  'claim_codes.mint': async (ctx) => {
    const code = await mintCode(ctx);
    await revokeCode(ctx, code);
    return 'minted a one-use public code, then revoked it';
  },
  'claim_codes.revoke': async (ctx) => {
    const code = await mintCode(ctx);
    const result = await revokeCode(ctx, code);
    check(result['revoked'] === true, 'claim_codes.revoke answered revoked false');
  },
};

/** A moderation write: its answer's `part.flag` (ban.banned, mute.muted) must be `want`. */
async function moderate(ctx: CaseContext, op: string, args: Row, part: string, flag: string, want: boolean) {
  const result = await expectResult<Record<string, Row>>(ctx, op, args, { opId: opId() });
  check(result[part]?.[flag] === want, `${op} answered ${part}.${flag} ${String(!want)}`);
}

/** players.ban and .unban, or .mute and .unmute: set (then lifted again), and lift. */
function moderationCalls(
  part: 'ban' | 'mute',
  flag: string,
  setArgs: (who: Row) => Row,
  lift: (ctx: CaseContext, who: Row) => Promise<void>,
): Record<`players.${'' | 'un'}${typeof part}`, ValidCall> {
  const calls: Record<string, ValidCall> = {
    [`players.${part}`]: async (ctx) => {
      const who = await player(ctx);
      await moderate(ctx, `players.${part}`, setArgs(who), part, flag, true);
      await lift(ctx, who);
    },
    [`players.un${part}`]: async (ctx) =>
      moderate(ctx, `players.un${part}`, liftArgs(await player(ctx)), part, flag, false),
  };
  return calls as Record<`players.${'' | 'un'}${typeof part}`, ValidCall>;
}

function liftArgs(who: Row): Row {
  return { ref: ref(who), actor: HARNESS_ACTOR };
}

let opIds = 0;
/** A fresh op id (PROTOCOL §6.4): the harness's own, ending in `.0` as the daemon's do. */
export function opId(): string {
  opIds += 1;
  return `modtest-${process.pid}-${Date.now().toString(36)}-${opIds}.0`;
}

/** The arguments players.ban and players.mute share (§6.1), for the fixture player `who`. */
function durationArgs(who: Row, duration: number | null, unit: string, permanent: boolean): Row {
  return {
    ref: ref(who),
    reason: HARNESS_REASON,
    permanent,
    duration,
    actor: HARNESS_ACTOR,
    duration_unit: unit,
  };
}

export function banArgs(who: Row, duration: number | null, unit: string, permanent = false): Row {
  return { ...durationArgs(who, duration, unit, permanent), squad_id: null };
}

export function muteArgs(who: Row, duration: number | null, unit: string, permanent = false): Row {
  return { ...durationArgs(who, duration, unit, permanent), channels: ['Global'] };
}

export function coinArgs(who: Row, amount: number): Row {
  return { ref: ref(who), amount, reason: HARNESS_REASON, actor: HARNESS_ACTOR };
}

export function currencyArgs(who: Row, mode: string, amount: number): Row {
  return { ref: ref(who), currency: 'cash', mode, amount, reason: HARNESS_REASON, actor: HARNESS_ACTOR };
}

export async function unban(ctx: CaseContext, who: Row): Promise<void> {
  await expectResult(ctx, 'players.unban', liftArgs(who), { opId: opId() });
}

export async function unmute(ctx: CaseContext, who: Row): Promise<void> {
  await expectResult(ctx, 'players.unmute', liftArgs(who), { opId: opId() });
}

export async function coinsOf(ctx: CaseContext, who: Row): Promise<number> {
  const profile = await expectResult(ctx, 'players.get', { ref: ref(who) });
  return Number(profile['coins']);
}

export async function mintCode(ctx: CaseContext): Promise<string> {
  const row = await pack(ctx);
  const args = {
    pack_id: String(row['id']),
    platform_id: null,
    max_uses: 1,
    expiry_days: 1,
    actor: HARNESS_ACTOR,
  };
  const minted = await expectResult(ctx, 'claim_codes.mint', args, { opId: opId() });
  check(minted['max_uses'] === 1, `claim_codes.mint answered max_uses ${String(minted['max_uses'])} for 1`);
  check(minted['target'] === null, 'claim_codes.mint answered a target for a public code (platform_id null)');
  return String(minted['code']);
}

export async function revokeCode(ctx: CaseContext, code: string): Promise<Row> {
  const result = await expectResult(
    ctx,
    'claim_codes.revoke',
    { code, actor: HARNESS_ACTOR },
    { opId: opId() },
  );
  same('claim_codes.revoke', 'code', result['code'], code);
  return result;
}

/** The case of players.list, whose rows give the player most cases act on. */
export const PLAYER_ROWS = 'op.players.list';

/**
 * The cases each op's valid call builds on (`ModCase.needs`): the list op whose first row it
 * reads, and `players.get` where it reads a coin balance. A wrong field there is one failure, not
 * one per op that uses the row.
 */
const NEEDS: Partial<Record<OpName, readonly string[]>> = {
  'players.get': [PLAYER_ROWS],
  'players.inventory': [PLAYER_ROWS],
  'players.moderation': [PLAYER_ROWS],
  'players.ips': [PLAYER_ROWS],
  'players.violations': [PLAYER_ROWS],
  'players.ban': [PLAYER_ROWS],
  'players.unban': [PLAYER_ROWS],
  'players.mute': [PLAYER_ROWS],
  'players.unmute': [PLAYER_ROWS],
  'players.link': [PLAYER_ROWS],
  'players.unlink': [PLAYER_ROWS],
  'bases.get': ['op.bases.list'],
  'vehicles.get': ['op.vehicles.list'],
  'vehicles.inventory': ['op.vehicles.list'],
  'containers.get': ['op.containers.list'],
  'containers.inventory': ['op.containers.list'],
  'squads.get': ['op.squads.list'],
  'squads.members': ['op.squads.list'],
  'squads.summary': ['op.squads.list'],
  'squads.bases': ['op.squads.list'],
  'squads.vehicles': ['op.squads.list'],
  'squads.containers': ['op.squads.list'],
  'commands.execute': ['op.commands.catalog'],
  'economy.coins': [PLAYER_ROWS, 'op.players.get'],
  'economy.currency': [PLAYER_ROWS],
  'packs.get': ['op.packs.list'],
  'packs.deliver': ['op.packs.list', PLAYER_ROWS],
  'claim_codes.mint': ['op.packs.list'],
  'claim_codes.revoke': ['op.packs.list'],
};

/** The valid-call case of every op, in catalogue order, reads before writes. */
export function validCallCases(): ModCase[] {
  const names = Object.keys(OPS) as OpName[];
  const ordered = [...names.filter((n) => !OPS[n].mutates), ...names.filter((n) => OPS[n].mutates)];
  return ordered.map((op) => ({
    id: `op.${op}`,
    op,
    section: '§6.1',
    needs: NEEDS[op] ?? [],
    run: (ctx: CaseContext) => VALID_CALLS[op](ctx),
  }));
}
