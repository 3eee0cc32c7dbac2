import { describe, expect, it } from 'vitest';
import { assetHandlers } from '../../../mod-sim/handlers/assets.ts';
import {
  compareDecimalStrings,
  countItems,
  createWorld,
  type Container,
  type Vehicle,
} from '../../../mod-sim/world/index.ts';
import { OPS, OpError, type OpName, type OpResult } from '../../../protocol/ops/index.ts';

const ctx = { opId: undefined, signal: new AbortController().signal };
const world = createWorld({ players: 2_000 });
const handlers = assetHandlers(world);

/** Calls a handler and checks its answer against the op's result schema, as the daemon does. */
async function call<N extends keyof typeof handlers & OpName>(
  op: N,
  args: Parameters<(typeof handlers)[N]>[0],
): Promise<OpResult<N>> {
  const result = await (handlers[op] as (a: unknown, c: typeof ctx) => unknown)(args, ctx);
  return OPS[op].result.parse(result) as OpResult<N>;
}

/** Every row of a list op, page by page, following `next`. */
async function walk<N extends 'vehicles.list' | 'containers.list' | 'bases.list' | 'squads.list'>(
  op: N,
  filters: Record<string, unknown>,
  limit: number,
) {
  const rows: Array<OpResult<N>['data'][number]> = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const page: OpResult<N> = await call(op, { ...filters, after, limit } as never);
    rows.push(...(page.data as Array<OpResult<N>['data'][number]>));
    expect(page.data.length).toBeLessThanOrEqual(limit);
    after = page.next;
    pages += 1;
  } while (after !== null);
  return { rows, pages };
}

async function rejection(run: () => unknown): Promise<OpError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof OpError) return error;
    throw error;
  }
  throw new Error('expected an OpError');
}

const vehicles = world.assets.vehicles.values();
const containers = world.assets.containers.values();
const bases = world.assets.bases.values();

describe('asset list handlers', () => {
  it('walks every vehicle once, ordered by entity id as a decimal value, with the total', async () => {
    const first = await call('vehicles.list', { after: null, limit: 100 });
    expect(first.total).toBe(vehicles.length);
    const { rows } = await walk('vehicles.list', {}, 100);
    expect(rows.map((v) => v.entity_id)).toEqual(vehicles.map((v) => v.entity_id));
    const ids = rows.map((v) => v.entity_id);
    expect([...ids].sort(compareDecimalStrings)).toEqual(ids);
    expect(ids.some((id) => id.length >= 17)).toBe(true);
  });

  it('starts a deep page right after the given position', async () => {
    const at = Math.floor(containers.length * 0.8);
    const after = world.assets.containers.keyAt(at);
    const page = await call('containers.list', { after, limit: 10 });
    expect(page.data.map((c) => c.entity_id)).toEqual(
      containers.slice(at + 1, at + 11).map((c) => c.entity_id),
    );
  });

  it('ends with next null exactly on the last page', async () => {
    const after = String(world.assets.bases.keyAt(bases.length - 3));
    const page = await call('bases.list', { after, limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.next).toBeNull();
  });

  it('answers invalid to a position no list could have issued', async () => {
    const error = await rejection(() => call('vehicles.list', { after: '007', limit: 10 }));
    expect(error.code).toBe('invalid');
    expect((await rejection(() => call('bases.list', { after: '99999999999999999', limit: 10 }))).code).toBe(
      'invalid',
    );
  });

  it.each<[string, Record<string, unknown>, (v: Vehicle) => boolean]>([
    ['alias (exact display name)', { alias: 'Rager' }, (v) => v.display_name === 'Rager'],
    ['is_locked', { is_locked: true }, (v) => v.is_locked],
    ['is_functional=false', { is_functional: false }, (v) => !v.is_functional],
    [
      'search',
      { search: 'LAIKA' },
      (v) => [v.display_name, v.class_name, v.owner.name].some((f) => f.toLowerCase().includes('laika')),
    ],
  ])('filters vehicles by %s, every page and the total', async (_name, filters, matches) => {
    const expected = vehicles.filter(matches).map((v) => v.entity_id);
    const { rows } = await walk('vehicles.list', filters, 37);
    expect(rows.map((v) => v.entity_id)).toEqual(expected);
    expect((await call('vehicles.list', { ...filters, after: null, limit: 10 } as never)).total).toBe(
      expected.length,
    );
  });

  it('matches alias and owner_name exactly, never as a substring', async () => {
    expect((await call('vehicles.list', { alias: 'Rage', after: null, limit: 10 })).total).toBe(0);
    const name = vehicles[0]?.owner.name as string;
    expect(
      (await call('vehicles.list', { owner_name: name.slice(0, -1), after: null, limit: 10 })).total,
    ).toBe(0);
    const page = await call('vehicles.list', { owner_name: name, after: null, limit: 100 });
    expect(page.data.map((v) => v.entity_id)).toEqual(
      vehicles.filter((v) => v.owner.name === name).map((v) => v.entity_id),
    );
  });

  it('narrows to one owner by platform id or social id', async () => {
    const owner = containers.find((c) => c.owner.social_id !== null)?.owner as Container['owner'];
    const expected = containers
      .filter((c) => c.owner.profile_id === owner.profile_id)
      .map((c) => c.entity_id);
    expected.sort(compareDecimalStrings);
    for (const filter of [
      { owner_platform_id: owner.platform_id },
      { owner_social_id: owner.social_id as string },
    ]) {
      const { rows } = await walk('containers.list', filter, 2);
      expect(rows.map((c) => c.entity_id)).toEqual(expected);
    }
  });

  it('answers an empty page, not not_found, for a social id linked to nobody', async () => {
    const page = await call('bases.list', {
      owner_social_id: '12345678901234567890',
      after: null,
      limit: 10,
    });
    expect(page).toEqual({ data: [], next: null, total: 0 });
  });

  it('filters containers by base id, reading leading zeros as the same value', async () => {
    const inBase = containers.find((c) => c.base_id !== null) as Container;
    const expected = containers.filter((c) => c.base_id === inBase.base_id).map((c) => c.entity_id);
    for (const baseId of [String(inBase.base_id), `00${inBase.base_id}`]) {
      const page = await call('containers.list', { base_id: baseId, after: null, limit: 100 });
      expect(page.data.map((c) => c.entity_id)).toEqual(expected);
      expect(page.total).toBe(expected.length);
    }
    expect((await call('containers.list', { base_id: '1', after: null, limit: 10 })).total).toBe(0);
  });

  it('filters bases by element count and health bounds, inclusive', async () => {
    const filters = { min_elements: 100, max_elements: 600, min_health: 0.25, max_health: 0.75 };
    const expected = bases.filter(
      (b) => b.element_count >= 100 && b.element_count <= 600 && b.avg_health >= 0.25 && b.avg_health <= 0.75,
    );
    const { rows } = await walk('bases.list', filters, 10);
    expect(rows.map((b) => b.flag_id)).toEqual(expected.map((b) => b.flag_id));
    expect(expected.length).toBeGreaterThan(0);
  });

  it('filters squads by size, score, recent activity and leader', async () => {
    const squads = world.squads.values();
    const page = await call('squads.list', {
      min_members: 3,
      max_members: 6,
      min_score: 5000,
      after: null,
      limit: 100,
    });
    const expected = squads.filter((s) => s.members.length >= 3 && s.members.length <= 6 && s.score >= 5000);
    expect(page.data.map((s) => s.id)).toEqual(expected.slice(0, 100).map((s) => s.id));
    expect(page.total).toBe(expected.length);
    const recent = await call('squads.list', { active_within_days: 1, after: null, limit: 100 });
    const all = await call('squads.list', { active_within_days: 400, after: null, limit: 10 });
    expect(recent.total).toBeLessThan(squads.length);
    expect(all.total).toBe(squads.length);
    const squad = squads[3];
    const leader = squad?.members.find((m) => m.rank === 4)?.player;
    const led = await call('squads.list', {
      leader_platform_id: leader?.platform_id,
      after: null,
      limit: 10,
    });
    expect(led.data.map((s) => s.id)).toEqual([squad?.id]);
    const member = squad?.members.find((m) => m.rank !== 4)?.player;
    if (member) {
      expect(
        (await call('squads.list', { leader_platform_id: member.platform_id, after: null, limit: 10 })).total,
      ).toBe(0);
    }
  });
});

describe('asset single reads', () => {
  it('finds a vehicle by an entity id above 2^53 and no neighbour of it', async () => {
    const big = vehicles.find((v) => v.entity_id.length >= 17) as Vehicle;
    expect((await call('vehicles.get', { entity_id: big.entity_id })).entity_id).toBe(big.entity_id);
    const neighbour = `${big.entity_id.slice(0, -1)}${(Number(big.entity_id.at(-1)) + 1) % 10}`;
    if (!world.assets.vehicles.has(neighbour)) {
      expect((await rejection(() => call('vehicles.get', { entity_id: neighbour }))).code).toBe('not_found');
    }
  });

  it('answers not_found for unknown squads, bases, vehicles and containers', async () => {
    expect((await rejection(() => call('squads.get', { id: '999999' }))).code).toBe('not_found');
    expect((await rejection(() => call('squads.members', { id: '12345678901234567890' }))).code).toBe(
      'not_found',
    );
    expect((await rejection(() => call('bases.get', { flag_id: '1' }))).code).toBe('not_found');
    expect((await rejection(() => call('containers.inventory', { entity_id: '1' }))).code).toBe('not_found');
  });

  it('counts an inventory at every depth, equal to the reported item_count', async () => {
    const reported = containers.filter((c) => c.item_count !== null).slice(0, 25);
    for (const container of reported) {
      const inventory = await call('containers.inventory', { entity_id: container.entity_id });
      expect(inventory.total).toBe(countItems(inventory.items));
      expect(inventory.total).toBe(container.item_count);
    }
  });

  it('counts types by display name, adding up to every vehicle and container', async () => {
    const vehicleTypes = (await call('vehicles.types', {})).types;
    const containerTypes = (await call('containers.types', {})).types;
    const sum = (types: Record<string, number>) => Object.values(types).reduce((a, b) => a + b, 0);
    expect(sum(vehicleTypes)).toBe(vehicles.length);
    expect(sum(containerTypes)).toBe(containers.length);
    expect(Object.keys(vehicleTypes)).toContain('Kinglet Duster');
    expect(Object.keys(vehicleTypes).some((name) => name.startsWith('BPC_'))).toBe(false);
  });
});

describe('squad handlers', () => {
  it('adds the summary up from the members and their assets', async () => {
    for (const squad of world.squads.values().slice(0, 40)) {
      const id = String(squad.id);
      const members = (await call('squads.members', { id })).data;
      const summary = await call('squads.summary', { id });
      const sum = (pick: (m: (typeof members)[number]) => number) => members.reduce((t, m) => t + pick(m), 0);
      const vehiclesOwned = (await call('squads.vehicles', { id, after: null, limit: 100 })).data.length;
      const containersOwned = (await call('squads.containers', { id, after: null, limit: 100 })).data.length;
      expect(summary).toEqual({
        squad_id: squad.id,
        total_kills: sum((m) => m.kills),
        total_deaths: sum((m) => m.deaths),
        total_cash: sum((m) => m.cash),
        total_bank_money: sum((m) => m.bank_money),
        total_gold: sum((m) => m.gold),
        total_fame: expect.closeTo(
          sum((m) => m.fame_points),
          2,
        ) as unknown as number,
        total_containers: containersOwned,
        total_vehicles: vehiclesOwned,
        member_count: members.length,
      });
    }
  });

  it('pages a squad’s assets in entity id order and only its members’ assets', async () => {
    const squad = world.squads.values().find((s) => s.members.length >= 6) ?? world.squads.itemAt(0);
    const profiles = new Set(squad.members.map((m) => m.player.user_profile_id));
    const expected = containers.filter((c) => profiles.has(c.owner.profile_id)).map((c) => c.entity_id);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: OpResult<'squads.containers'> = await call('squads.containers', {
        id: String(squad.id),
        after,
        limit: 1,
      });
      seen.push(...page.data.map((c) => c.entity_id));
      after = page.next;
    } while (after !== null);
    expect(seen).toEqual(expected);
  });
});
