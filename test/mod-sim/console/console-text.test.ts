import { describe, expect, it } from 'vitest';
import {
  CommandLineError,
  ConsoleActivity,
  TASK_ACTOR,
  formatCommand,
  parseCommand,
  splitWords,
} from '../../../mod-sim/console/index.ts';
import { consoleWorld, newest, onlinePlayer } from './console-support.ts';

const takesSubject = (verb: string) => verb !== 'Announce';

describe('command lines', () => {
  it('splits on whitespace and keeps quoted words whole, with escapes', () => {
    expect(splitWords('  #Kick  123 "two words" "a \\"quote\\"" "back\\\\slash" ')).toEqual([
      '#Kick',
      '123',
      'two words',
      'a "quote"',
      'back\\slash',
    ]);
    expect(splitWords('""')).toEqual(['']);
  });

  it('refuses an unterminated quote and an empty line', () => {
    expect(() => splitWords('#Announce "open')).toThrow(CommandLineError);
    expect(() => parseCommand('   ', takesSubject)).toThrow(CommandLineError);
    expect(() => parseCommand('#', takesSubject)).toThrow(CommandLineError);
  });

  it('reads a platform id or @x,y,z as the subject only for verbs that take one', () => {
    expect(parseCommand('#Heal 76561190000000001', takesSubject)).toEqual({
      verb: 'Heal',
      subject: { platform_id: '76561190000000001' },
      args: [],
    });
    expect(parseCommand('SpawnZombie @1.5,-2,3 4', takesSubject)).toEqual({
      verb: 'SpawnZombie',
      subject: { position: { x: 1.5, y: -2, z: 3 } },
      args: ['4'],
    });
    expect(parseCommand('#Announce 76561190000000001', takesSubject).subject).toBeNull();
  });

  it('round-trips what it formats', () => {
    const args = ['plain', 'with space', 'quote"d', 'back\\slash', ''];
    const subject = { kind: 'position' as const, position: { x: -1, y: 0.25, z: 7 } };
    const line = formatCommand('SpawnItem', subject, args);
    expect(parseCommand(line, takesSubject)).toEqual({
      verb: 'SpawnItem',
      subject: { position: subject.position },
      args,
    });
  });

  it('runs a typed line through the console and logs it as typed', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const outcome = t.console.run(`#Location ${player.platform_id}`, {
      actor: { key_id: 'chat', name: player.char_name, platform_id: player.platform_id, social_id: null },
      source: 'chat',
      rank: 0,
      caller: player,
    });
    expect(outcome.success).toBe(true);
    expect(newest(t.world)).toMatchObject({
      command: `#Location ${player.platform_id}`,
      actor: { platform_id: player.platform_id, social_id: null },
    });
  });

  it('logs a line it cannot read with the reason', () => {
    const t = consoleWorld();
    const outcome = t.console.run('#Announce "oops', { actor: TASK_ACTOR, source: 'task', rank: 4 });
    expect(outcome).toMatchObject({ success: false, result: 'Unterminated quote' });
    expect(newest(t.world)).toMatchObject({ command: '#Announce "oops', result: 'Unterminated quote' });
  });
});

describe("the game's own console traffic", () => {
  function traffic(ticks: number) {
    const t = consoleWorld({ seed: 7 });
    const activity = new ConsoleActivity(t.console);
    const before = t.world.commands.history.length;
    for (let i = 0; i < ticks; i++) activity.tick();
    return { t, written: t.world.commands.history.query(undefined, ticks).items.slice(0, ticks), before };
  }

  it('writes one entry per tick from tasks, the panel and chat', () => {
    const { t, written, before } = traffic(60);
    expect(t.world.commands.history.length).toBe(before + 60);
    const actors = written.map((e) => e.actor);
    expect(actors.some((a) => a?.platform_id === null && a.social_id === null)).toBe(true);
    const admins = new Set(
      t.world.players.list
        .values()
        .filter((p) => p.is_admin)
        .map((p) => p.platform_id),
    );
    expect(written.some((e) => e.actor?.platform_id != null && admins.has(e.actor.platform_id))).toBe(true);
    expect(written.some((e) => e.command.startsWith('#Location '))).toBe(true);
    for (const entry of written) expect(entry.command.startsWith('#')).toBe(true);
  });

  it('writes the same traffic for the same seed', () => {
    expect(traffic(20).written).toEqual(traffic(20).written);
  });

  it('writes nothing before the catalogue is built', () => {
    const t = consoleWorld({}, { catalogDelayMs: 60_000 });
    const before = t.world.commands.history.length;
    expect(new ConsoleActivity(t.console).tick()).toBeUndefined();
    expect(t.world.commands.history.length).toBe(before);
  });

  it('never starts a timer for an interval of 0', () => {
    const t = consoleWorld();
    const activity = new ConsoleActivity(t.console);
    activity.start(0);
    activity.stop();
    expect(t.world.commands.history.length).toBeGreaterThan(0);
  });
});
