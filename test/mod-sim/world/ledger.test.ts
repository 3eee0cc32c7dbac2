import { describe, expect, it } from 'vitest';
import type { LedgerEntry, LedgerFilter } from '../../../mod-sim/world/index.ts';
import { LEDGER_SOURCES, createWorld } from '../../../mod-sim/world/index.ts';
import { allLedgerEntries, sharedWorld } from './fixture.ts';

const AUTOMATIC = ['system', 'task', 'leaderboard'];

describe('economy ledger', () => {
  const world = sharedWorld();
  const entries = allLedgerEntries(world);

  it('holds a few thousand entries at 200 players', () => {
    expect(entries.length).toBe(3_000);
  });

  it('covers every source the spec lists', () => {
    expect(new Set(entries.map((e) => e.source))).toEqual(new Set(LEDGER_SOURCES));
    expect(new Set(entries.map((e) => e.asset))).toEqual(new Set(['cash', 'gold', 'coins']));
    expect(new Set(entries.map((e) => e.scope))).toEqual(new Set(['player', 'all', 'online']));
    expect(new Set(entries.map((e) => e.mode))).toEqual(new Set(['delta', 'set']));
  });

  it('has a null actor on automatic entries and an actor on the others', () => {
    for (const entry of entries) {
      if (AUTOMATIC.includes(entry.source)) expect(entry.actor).toBeNull();
      else expect(entry.actor).not.toBeNull();
    }
  });

  it('has a null player and null balances on bulk entries, counting only bulk coins', () => {
    const bulk = entries.filter((e) => e.scope !== 'player');
    expect(bulk.length).toBeGreaterThan(0);
    for (const entry of bulk) {
      expect(entry.player).toBeNull();
      expect(entry.balance_before).toBeNull();
      expect(entry.balance_after).toBeNull();
      if (entry.asset === 'coins') expect(Number.isInteger(entry.affected_count)).toBe(true);
      else expect(entry.affected_count).toBeNull();
    }
    for (const entry of entries.filter((e) => e.scope === 'player')) {
      expect(entry.player).not.toBeNull();
      expect(entry.affected_count).toBeNull();
    }
  });

  it('has some per-player entries with unknown (null) balances', () => {
    const unknown = entries.filter((e) => e.scope === 'player' && e.balance_after === null);
    expect(unknown.length).toBeGreaterThan(0);
    for (const entry of unknown) expect(entry.balance_before).toBeNull();
  });

  it('never records a zero delta, and a set records the balance it set', () => {
    for (const entry of entries) {
      if (entry.mode === 'delta') expect(entry.amount).not.toBe(0);
      else {
        expect(entry.amount).toBeGreaterThanOrEqual(0);
        if (entry.balance_after !== null) expect(entry.amount).toBe(entry.balance_after);
      }
      if (entry.mode === 'delta' && entry.balance_after !== null) {
        expect((entry.balance_before ?? 0) + entry.amount).toBe(entry.balance_after);
      }
    }
  });

  it('chains each player’s balances and ends at the balance the roster shows', () => {
    const last = new Map<string, LedgerEntry>();
    for (const entry of entries) {
      if (entry.player === null) continue;
      const key = `${entry.player.platform_id}/${entry.asset}`;
      const previous = last.get(key);
      if (previous?.balance_after != null && entry.balance_before !== null) {
        expect(entry.balance_before).toBe(previous.balance_after);
      }
      last.set(key, entry);
    }
    for (const [key, entry] of last) {
      if (entry.balance_after === null) continue;
      const player = world.players.byPlatformId(key.split('/')[0]!)!;
      const current = { cash: player.money, gold: player.gold, coins: player.coins }[entry.asset];
      expect(entry.balance_after).toBe(current);
    }
  });

  it('names the pack on pack and claim entries only', () => {
    for (const entry of entries) {
      if (entry.source === 'pack' || entry.source === 'claim')
        expect(entry.pack_name).toMatch(/^[a-z0-9-]+$/);
      else expect(entry.pack_name).toBeNull();
    }
  });

  it('stamps entries in time order with increasing ids', () => {
    for (let i = 1; i < entries.length; i++) expect(entries[i - 1]!.at <= entries[i]!.at).toBe(true);
  });

  it('has no online-only coin entries on mods older than 2.0.30', () => {
    const old = allLedgerEntries(createWorld({ modVersion: '2.0.29' }));
    expect(old.some((e) => e.asset === 'coins' && e.scope === 'online')).toBe(false);
    expect(entries.some((e) => e.asset === 'coins' && e.scope === 'online')).toBe(true);
  });
});

describe('Ledger.query', () => {
  const world = sharedWorld();
  const newestFirst = allLedgerEntries(world).reverse();
  const somePlayer = newestFirst.find((e) => e.player !== null)!.player!.platform_id;

  const matches = (entry: LedgerEntry, filter: LedgerFilter): boolean =>
    (filter.platform_id === undefined || entry.player?.platform_id === filter.platform_id) &&
    (filter.asset === undefined || entry.asset === filter.asset) &&
    (filter.source === undefined || entry.source === filter.source) &&
    (filter.scope === undefined || entry.scope === filter.scope) &&
    (filter.start_date === undefined || entry.at >= filter.start_date) &&
    (filter.end_date === undefined || entry.at <= filter.end_date);

  function pageAll(filter: LedgerFilter, limit: number): LedgerEntry[] {
    const out: LedgerEntry[] = [];
    let after: string | undefined;
    for (let guard = 0; guard < 10_000; guard++) {
      const page = world.ledger.query({ after, limit, filter });
      out.push(...page.items);
      if (!page.hasMore) return out;
      after = page.nextAfter ?? undefined;
    }
    throw new Error('paging did not end');
  }

  it.each<[string, LedgerFilter, number]>([
    ['no filter', {}, 97],
    ['one player', { platform_id: 'PLAYER' }, 3],
    ['one player and asset', { platform_id: 'PLAYER', asset: 'cash' }, 2],
    ['one source', { source: 'task' }, 50],
    ['bulk scope', { scope: 'all' }, 5],
    ['a date window', { start_date: '2025-01-01 00:00:00', end_date: '2025-02-15 23:59:59' }, 40],
    ['an unknown player', { platform_id: '76561190000000000' }, 10],
  ])('pages newest first through exactly the matching entries: %s', (_name, rawFilter, limit) => {
    const filter = { ...rawFilter };
    if (filter.platform_id === 'PLAYER') filter.platform_id = somePlayer;
    const expected = newestFirst.filter((e) => matches(e, filter));
    expect(pageAll(filter, limit)).toEqual(expected);
  });

  it('treats the date bounds as inclusive', () => {
    const at = newestFirst[100]!.at;
    const page = world.ledger.query({ limit: 100, filter: { start_date: at, end_date: at } });
    expect(page.items.length).toBeGreaterThan(0);
    for (const entry of page.items) expect(entry.at).toBe(at);
  });

  it('serves the SortedView order: newest first, keyed by id', () => {
    expect(world.ledger.itemAt(0)).toEqual(newestFirst[0]);
    expect(world.ledger.keyAt(0)).toBe(newestFirst[0]!.id);
    expect(world.ledger.compareKeys('10', '9')).toBeLessThan(0);
  });

  it('appends a run-time entry as the newest, with the next id', () => {
    const ledgerWorld = createWorld({ players: 20 });
    const player = ledgerWorld.players.list.itemAt(0);
    const before = ledgerWorld.ledger.length;
    const entry = ledgerWorld.ledger.append({
      at: '2025-06-01 12:00:00',
      player: player.refs.identity,
      actor: null,
      asset: 'coins',
      mode: 'delta',
      amount: 5,
      balance_before: player.coins,
      balance_after: player.coins + 5,
      scope: 'player',
      affected_count: null,
      source: 'api',
      reason: 'test',
      pack_name: null,
    });
    expect(entry.id).toBe(String(before + 1));
    const page = ledgerWorld.ledger.query({ limit: 1, filter: { platform_id: player.platform_id } });
    expect(page.items[0]).toBe(entry);
    expect(ledgerWorld.ledger.query({ limit: 1, filter: { source: 'api', asset: 'coins' } }).items[0]).toBe(
      entry,
    );
  });

  it('rejects a malformed key and a bad page size', () => {
    expect(() => world.ledger.query({ limit: 10, after: 'abc' })).toThrow(RangeError);
    expect(() => world.ledger.query({ limit: 0 })).toThrow(RangeError);
  });

  it('generates and pages a million-entry ledger', () => {
    const big = createWorld({ players: 2_000, ledgerEntries: 1_000_000 });
    expect(big.ledger.length).toBe(1_000_000);
    const first = big.ledger.query({ limit: 100 });
    expect(first.items[0]?.id).toBe('1000000');
    const deep = big.ledger.query({ limit: 100, after: '500' });
    expect(deep.items.map((e) => e.id)).toEqual(
      Array.from({ length: 100 }, (_, i) => String(499 - i)).slice(0, 100),
    );
    const player = big.players.list.itemAt(0).platform_id;
    const mine = big.ledger.query({ limit: 100, filter: { platform_id: player } });
    for (const entry of mine.items) expect(entry.player?.platform_id).toBe(player);
  });
});
