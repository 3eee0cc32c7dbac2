import { describe, expect, it } from 'vitest';
import { OpError } from '../../../protocol/ops/index.ts';
import { CommandConsole, NOBODY_ONLINE } from '../../../mod-sim/console/index.ts';
import { createWorld } from '../../../mod-sim/world/index.ts';
import {
  API_ACTOR,
  at,
  consoleWorld,
  emptyServer,
  newest,
  offlinePlayer,
  onlinePlayer,
} from './console-support.ts';

function opErrorOf(run: () => unknown): OpError {
  try {
    run();
  } catch (error) {
    if (error instanceof OpError) return error;
    throw error;
  }
  throw new Error('expected an OpError');
}

describe('catalogue loading', () => {
  it('answers unavailable with a retry hint until the catalogue is built', () => {
    let wall = 1_000;
    const console = new CommandConsole(createWorld({ players: 20 }), {
      catalogDelayMs: 2_500,
      now: () => wall,
    });
    const error = opErrorOf(() => console.catalog());
    expect(error.code).toBe('unavailable');
    expect(error.details).toEqual({ retry_after_sec: 3 });
    wall += 2_000;
    expect(opErrorOf(() => console.catalog()).details).toEqual({ retry_after_sec: 1 });
    wall += 500;
    expect(console.catalog().data.length).toBe(44);
  });

  it('refuses to run commands before the catalogue is built, and logs nothing', () => {
    const world = createWorld({ players: 20 });
    const console = new CommandConsole(world, { catalogDelayMs: 60_000 });
    const before = world.commands.history.length;
    const run = () =>
      console.execute({ verb: 'Online', args: [], target: null, actor: API_ACTOR, source: 'api', rank: 4 });
    expect(opErrorOf(run).code).toBe('unavailable');
    expect(world.commands.history.length).toBe(before);
    console.loadCatalog();
    expect(run().success).toBe(true);
  });

  it('rejects a negative or fractional delay', () => {
    const world = createWorld({ players: 1 });
    expect(() => new CommandConsole(world, { catalogDelayMs: -1 })).toThrow(RangeError);
    expect(() => new CommandConsole(world, { catalogDelayMs: 1.5 })).toThrow(RangeError);
  });
});

describe('command history', () => {
  it('logs every command with the actor, the command text, the result and the source, on the server clock', () => {
    const t = consoleWorld();
    t.advance(5_000);
    const outcome = t.api('Online');
    expect(newest(t.world)).toEqual({
      at: '2025-06-01 12:00:05.000',
      command: '#Online',
      result: outcome.result,
      actor: { platform_id: API_ACTOR.platform_id, social_id: API_ACTOR.social_id },
      source: 'api',
    });
    t.console.execute({ verb: 'Online', args: [], target: null, actor: API_ACTOR, source: 'panel', rank: 4 });
    expect(newest(t.world).source).toBe('panel');
  });

  it('logs refused commands too, with the refusal as the result', () => {
    const t = consoleWorld();
    const outcome = t.api('Fly', ['high']);
    expect(outcome).toMatchObject({ verb: 'Fly', success: false });
    expect(newest(t.world)).toMatchObject({ command: '#Fly high', result: outcome.result });
  });

  it('names both actor ids null for a key with no owner', () => {
    const t = consoleWorld();
    t.console.execute({
      verb: 'Online',
      args: [],
      target: null,
      actor: { key_id: 'k', name: 'bot', platform_id: null, social_id: null },
      source: 'api',
      rank: 4,
    });
    expect(newest(t.world).actor).toEqual({ platform_id: null, social_id: null });
  });

  it('writes no actor at all on a mod older than 2.0.47', () => {
    const t = consoleWorld({ modVersion: '2.0.46' });
    t.api('Online');
    expect(newest(t.world).actor).toBeNull();
  });

  it('never stamps an entry before the newest one, so the history stays in time order', () => {
    const t = consoleWorld();
    t.advance(-60_000);
    const previous = newest(t.world).at;
    t.api('Online');
    expect(newest(t.world).at >= previous).toBe(true);
  });

  it('shows a player subject as its platform id and a position as @x,y,z, quoting spaced words', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    t.api('Kick', ['spamming the "chat"'], at(player));
    expect(newest(t.world).command).toBe(`#Kick ${player.platform_id} "spamming the \\"chat\\""`);
    t.api('SpawnZombie', ['2'], { position: { x: 10.5, y: -20, z: 3 } });
    expect(newest(t.world).command).toBe('#SpawnZombie @10.5,-20,3 2');
  });
});

describe('checks every command passes', () => {
  it('finds verbs in any case, with or without #, and answers with the catalogue spelling', () => {
    const t = consoleWorld();
    expect(t.api('online')).toMatchObject({ verb: 'Online', success: true });
    expect(t.api('#ONLINE')).toMatchObject({ verb: 'Online', success: true });
  });

  it('refuses an unknown verb with the game explanation', () => {
    const t = consoleWorld();
    expect(t.api('Fly').result).toBe("Unknown command 'Fly'. Type #Help for the list of commands");
  });

  it('refuses a blocked verb in any case, and runs nothing', () => {
    const t = consoleWorld({}, { blockedVerbs: ['restartserver', 'Kick'] });
    const outcome = t.api('RestartServer', ['5']);
    expect(outcome).toMatchObject({
      success: false,
      result: 'Command RestartServer is blocked on this server',
    });
    const player = onlinePlayer(t.world);
    expect(t.api('Kick', [], at(player)).success).toBe(false);
    expect(player.online).toBe(true);
    expect(t.api('Online').success).toBe(true);
  });

  it('refuses a verb above the executor rank', () => {
    const t = consoleWorld();
    const outcome = t.console.execute({
      verb: 'SaveWorld',
      args: [],
      target: null,
      actor: API_ACTOR,
      source: 'chat',
      rank: 0,
    });
    expect(outcome).toMatchObject({ success: false, result: 'You need elevated rank to run SaveWorld' });
  });

  it.each([
    ['a server-wide verb given a target', 'Online', [], 'player', 'Online does not take a target'],
    ['a player verb without a target', 'Heal', [], null, 'Heal needs a player target'],
    ['a player verb given a position', 'Heal', [], 'position', 'Heal needs a player target'],
    ['a spawner without a target', 'SpawnZombie', [], null, 'SpawnZombie needs a player or position target'],
  ] as const)('refuses %s', (_what, verb, args, kind, result) => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const target =
      kind === 'player' ? at(player) : kind === 'position' ? { position: { x: 0, y: 0, z: 0 } } : null;
    expect(t.api(verb, [...args], target)).toMatchObject({ success: false, result });
  });

  it.each([
    ['a missing required argument', 'SetWeather', [], 'Missing argument <weather>'],
    ['too many arguments', 'Online', ['now'], 'Too many arguments: Online takes no arguments'],
    ['a word that is not a whole number', 'SetTime', ['noon'], "Invalid value 'noon' for <hour>"],
    ['a fraction where a whole number goes', 'SetTime', ['1.5'], "Invalid value '1.5' for <hour>"],
    ['a whole number past 32 bits', 'SetTime', ['4294967296'], "Invalid value '4294967296'"],
    ['a value outside a fixed choice', 'SetWeather', ['Hail'], 'expected one of Sunny, Cloudy'],
  ])('refuses %s', (_what, verb, args, result) => {
    const t = consoleWorld();
    const outcome = t.api(verb, args);
    expect(outcome.success).toBe(false);
    expect(outcome.result).toContain(result);
  });

  it('accepts a fixed-choice value in any case and uses the catalogue spelling', () => {
    const t = consoleWorld();
    expect(t.api('SetWeather', ['rAIN']).result).toBe('Weather set to Rain');
  });

  it('gathers every remaining word into a repeating argument', () => {
    const t = consoleWorld();
    expect(t.api('Announce', ['Server', 'restart', 'soon']).success).toBe(true);
    expect(newest(t.world).command).toBe('#Announce Server restart soon');
  });

  it('refuses a verb that needs a connected player when nobody is online', () => {
    const t = consoleWorld();
    emptyServer(t.world);
    expect(t.api('SetWeather', ['Rain'])).toMatchObject({ success: false, result: NOBODY_ONLINE });
    expect(t.api('Online').success).toBe(true);
  });

  it('refuses a player verb whose target is offline', () => {
    const t = consoleWorld();
    const player = offlinePlayer(t.world);
    const outcome = t.api('Heal', [], at(player));
    expect(outcome.success).toBe(false);
    expect(outcome.result).toContain('is not online');
  });
});

describe('subjects', () => {
  it('takes a platform id as is, even one that never joined', () => {
    const t = consoleWorld();
    const outcome = t.api('ShowPlayerInfo', [], { player: { platform_id: '76561199999999901' } });
    expect(outcome).toMatchObject({ success: false, result: 'Player 76561199999999901 not found' });
    expect(outcome.subject).toEqual({ kind: 'player', platformId: '76561199999999901', player: undefined });
  });

  it('resolves a linked social id to its player', () => {
    const t = consoleWorld();
    const player = t.world.players.list.values().find((p) => p.social_id !== null)!;
    const outcome = t.api('ShowPlayerInfo', [], { player: { social_id: player.social_id! } });
    expect(outcome.success).toBe(true);
    expect(outcome.subject).toMatchObject({ kind: 'player', platformId: player.platform_id, player });
    expect(newest(t.world).command).toBe(`#ShowPlayerInfo ${player.platform_id}`);
  });

  it('answers not_found for a social id linked to nobody, and runs and logs nothing', () => {
    const t = consoleWorld();
    const before = t.world.commands.history.length;
    const error = opErrorOf(() => t.api('Kick', [], { player: { social_id: '999999999999999999' } }));
    expect(error.code).toBe('not_found');
    expect(t.world.commands.history.length).toBe(before);
  });
});
