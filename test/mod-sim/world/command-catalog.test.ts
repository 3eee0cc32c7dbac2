import { describe, expect, it } from 'vitest';
import { OUTPUT_MODES, TARGET_MODES, createWorld, historyBound } from '../../../mod-sim/world/index.ts';
import { commandCatalog } from '../../../mod-sim/world/command-catalog.ts';
import { sharedWorld } from './fixture.ts';

describe('command catalogue', () => {
  const catalog = commandCatalog();

  it('holds dozens of unique verbs, sorted, at every level', () => {
    const verbs = catalog.data.map((e) => e.verb);
    expect(verbs.length).toBeGreaterThanOrEqual(36);
    expect(new Set(verbs).size).toBe(verbs.length);
    expect(verbs).toEqual([...verbs].sort());
    for (const verb of verbs) expect(verb).toMatch(/^[A-Za-z]+$/);
    expect(new Set(catalog.data.map((e) => e.level))).toEqual(new Set([0, 1, 2, 3, 4]));
  });

  it('uses known target and output modes and marks spawners and online-only verbs', () => {
    for (const entry of catalog.data) {
      expect(TARGET_MODES).toContain(entry.target_mode);
      expect(OUTPUT_MODES).toContain(entry.output_mode);
    }
    expect(catalog.data.some((e) => e.direct_spawn_capable)).toBe(true);
    expect(catalog.data.some((e) => e.requires_online)).toBe(true);
    expect(catalog.data.some((e) => !e.requires_online)).toBe(true);
  });

  it('lists the options of fixed-choice arguments and none for dynamic ones', () => {
    const args = catalog.data.flatMap((e) => e.args);
    const fixed = args.filter((a) => a.values.length > 0);
    expect(fixed.length).toBeGreaterThan(3);
    for (const arg of fixed) expect(arg.completion).toBe('values');
    expect(args.find((a) => a.type_name === 'ItemClass')?.values).toEqual([]);
    expect(catalog.data.find((e) => e.verb === 'ChangeCurrencyBalance')?.args[0]?.values).toEqual([
      'Normal',
      'Gold',
    ]);
  });

  it('serialises identically every time', () => {
    expect(JSON.stringify(commandCatalog())).toBe(JSON.stringify(catalog));
    expect(commandCatalog()).not.toBe(catalog);
  });
});

describe('command history', () => {
  const world = sharedWorld({ players: 1_000 });
  const history = world.commands.history;
  const newestFirst = history.query(undefined, 100_000).items;

  it('keeps entries newest first with millisecond server-clock stamps', () => {
    expect(newestFirst.length).toBe(1_500);
    for (let i = 1; i < newestFirst.length; i++)
      expect(newestFirst[i - 1]!.at >= newestFirst[i]!.at).toBe(true);
    for (const entry of newestFirst) {
      expect(entry.at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
      expect(entry.command.startsWith('#')).toBe(true);
    }
  });

  it('attributes entries to a person, to nobody, or (before the upgrade) not at all', () => {
    const actors = newestFirst.map((e) => e.actor);
    expect(actors.some((a) => a !== null && a.platform_id !== null)).toBe(true);
    expect(actors.some((a) => a !== null && a.platform_id === null && a.social_id === null)).toBe(true);
    expect(actors.some((a) => a === null)).toBe(true);
    const oldest = newestFirst.at(-1)!;
    expect(oldest.actor).toBeNull();
  });

  it('has no actor at all on mods older than 2.0.47', () => {
    const old = createWorld({ modVersion: '2.0.46' });
    for (const entry of old.commands.history.query(undefined, 10_000).items) expect(entry.actor).toBeNull();
  });

  it('pages newest first by key, with text and inclusive date filters', () => {
    const first = history.query(undefined, 10);
    const second = history.query(first.nextAfter ?? undefined, 10);
    expect([...first.items, ...second.items]).toEqual(newestFirst.slice(0, 20));
    const spawns = history.query(undefined, 10_000, { command: 'Spawn' }).items;
    expect(spawns).toEqual(newestFirst.filter((e) => e.command.includes('Spawn')));
    const day = newestFirst[10]!.at.slice(0, 10);
    const onDay = history.query(undefined, 10_000, { start_date: day, end_date: day }).items;
    expect(onDay).toEqual(newestFirst.filter((e) => e.at.startsWith(day)));
    expect(onDay.length).toBeGreaterThan(0);
  });

  it('normalises history date bounds and rejects other formats', () => {
    expect(historyBound('2025-05-01', 'start')).toBe('2025-05-01 00:00:00.000');
    expect(historyBound('2025-05-01', 'end')).toBe('2025-05-01 23:59:59.999');
    expect(historyBound('2025-05-01 10:11:12', 'end')).toBe('2025-05-01 10:11:12.999');
    expect(historyBound('2025-05-01 10:11:12.345', 'start')).toBe('2025-05-01 10:11:12.345');
    expect(() => historyBound('01/05/2025', 'start')).toThrow(RangeError);
    expect(() => historyBound('2025-05-01T10:11:12', 'start')).toThrow(RangeError);
  });

  it('appends new entries as the newest', () => {
    const local = createWorld({ players: 10 });
    const key = local.commands.history.append({
      at: '2025-06-01 12:00:00.000',
      command: '#SaveWorld',
      result: '',
      actor: { platform_id: null, social_id: null },
    });
    const page = local.commands.history.query(undefined, 1);
    expect(page.items[0]?.command).toBe('#SaveWorld');
    expect(local.commands.history.keyAt(0)).toBe(key);
  });
});
