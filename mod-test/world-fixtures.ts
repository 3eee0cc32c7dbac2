/**
 * The records of the mod's own world that op cases need, found through the mod's list ops the
 * first time a case asks (a player, a connected player, a squad, a base, a vehicle, a container, a
 * pack, a catalogue verb). The harness knows nothing of the game in advance: a world without
 * vehicles skips the vehicle reads, it does not fail them.
 */
import { expectResult, judgeResult } from './answers.ts';
import { CaseSkip, fail, ModGone, skip, type CaseContext } from './case.ts';

type Row = Record<string, unknown>;

/** Who the harness's writes are attributed to (`WriteActor`, §6.1). */
export const HARNESS_ACTOR = Object.freeze({
  key_id: 'key_modtest',
  name: 'modgate mod test',
  platform_id: null,
  social_id: null,
});

/** A well-formed platform id no game has: the `not_found` cases use it (§6.3). */
export const UNKNOWN_PLATFORM_ID = '00000000000000000';
/** A well-formed asset, squad or pack id no game has. */
export const UNKNOWN_ID = '99999999999999999';
export const HARNESS_REASON = 'modgate mod test';

const firstPage = { after: null, limit: 5 };

async function firstRow(ctx: CaseContext, op: string, args: Row, what: string): Promise<Row> {
  let page: { data: Row[] };
  try {
    page = await expectResult<{ data: Row[] }>(ctx, op, { ...firstPage, ...args });
  } catch (error) {
    // A mod without the list op cannot be asked about its records: a skip, like the op's own.
    if (error instanceof CaseSkip) skip(`needs ${what} from ${op}, which the mod does not implement`);
    if (error instanceof ModGone) throw error;
    return fail(`needs ${what} from ${op}, which failed: ${(error as Error).message}`);
  }
  const row = page.data[0];
  if (row === undefined) skip(`the mod's world has no ${what} (${op} answered an empty page)`);
  return row;
}

export function player(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('player', () => firstRow(ctx, 'players.list', {}, 'player'));
}

export function onlinePlayer(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('onlinePlayer', () =>
    firstRow(ctx, 'players.list', { online: true }, 'connected player'),
  );
}

/** A player with a social link, for the link ops. */
export function linkedPlayer(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('linkedPlayer', async () => {
    const page = await expectResult<{ data: Row[] }>(ctx, 'players.list', { after: null, limit: 100 });
    const row = page.data.find((candidate) => typeof candidate['social_id'] === 'string');
    if (row === undefined) skip('no player on the first roster page has a social link');
    return row;
  });
}

export function squad(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('squad', () => firstRow(ctx, 'squads.list', {}, 'squad'));
}

export function base(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('base', () => firstRow(ctx, 'bases.list', {}, 'base'));
}

export function vehicle(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('vehicle', () => firstRow(ctx, 'vehicles.list', {}, 'vehicle'));
}

export function container(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('container', () => firstRow(ctx, 'containers.list', {}, 'container'));
}

export function pack(ctx: CaseContext): Promise<Row> {
  return ctx.fixtures.get('pack', () => firstRow(ctx, 'packs.list', { enabled: true }, 'enabled pack'));
}

/** A catalogue verb that only reads (no target, no required argument), for `commands.execute`. */
export function readVerb(ctx: CaseContext): Promise<string> {
  return ctx.fixtures.get('readVerb', async () => {
    const catalog = await loadedCatalog(ctx);
    const harmless = catalog.data.filter(
      (entry) =>
        entry['target_mode'] === 'none' &&
        entry['output_mode'] !== 'silent' &&
        (entry['args'] as Row[]).every((arg) => arg['required'] !== true),
    );
    const preferred = harmless.find((entry) => /^(online|listplayers|help)$/i.test(String(entry['verb'])));
    const verb = (preferred ?? harmless[0])?.['verb'];
    if (typeof verb !== 'string') skip('the command catalogue has no verb without target and arguments');
    return verb;
  });
}

/**
 * The command catalogue once the game has built it: `unavailable` while it loads is the
 * documented answer (§6.3), so the harness asks again until the case's time is up.
 */
export async function loadedCatalog(ctx: CaseContext): Promise<{ data: Row[]; waitedMs: number }> {
  const started = Date.now();
  for (;;) {
    const answer = await ctx.call('commands.catalog', {});
    if (answer.kind === 'error' && answer.error.code === 'unavailable' && Date.now() - started < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    const catalog = judgeResult<{ data: Row[] }>('commands.catalog', answer);
    return { data: catalog.data, waitedMs: Date.now() - started };
  }
}

export function ref(row: Row): { platform_id: string } {
  return { platform_id: String(row['platform_id']) };
}
