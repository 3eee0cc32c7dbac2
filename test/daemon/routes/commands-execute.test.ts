import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Player } from '../../../mod-sim/world/index.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';
import {
  type CommandAnswer,
  type HistoryPage,
  OWNER,
  errorOf,
  historyLength,
  newKey,
  onlinePlayer,
  postCommand,
} from './commands-support.ts';

const NEVER_JOINED = '76561199999999903';
const UNLINKED_SOCIAL = '998877665544332211';

describe('POST /v1/commands', () => {
  let stack: Stack;
  let ownedKey: string;
  let players: readonly Player[];

  beforeAll(async () => {
    stack = await startStack({
      sim: { catalogDelayMs: 0, activityIntervalMs: 0, blockedVerbs: ['RestartServer'] },
    });
    players = stack.sim!.world.players.list.values();
    ownedKey = await newKey(
      stack,
      '--name',
      'ops-bot',
      '--owner-platform-id',
      OWNER.platform_id,
      '--owner-social-id',
      OWNER.social_id,
    );
  });
  afterAll(() => stack.close());

  it('runs a server-wide command and answers verb, success, result and a null subject', async () => {
    const res = await postCommand(stack, { verb: 'online' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['etag']).toBeUndefined();
    const online = stack.sim!.world.players.onlineCount();
    expect(res.json).toEqual({
      verb: 'Online',
      success: true,
      result: `${online} players online`,
      subject: null,
    });
  });

  it('answers 200 with success false and the game explanation when the game refuses', async () => {
    const unknown = await postCommand(stack, { verb: 'Fly', args: ['high'] });
    expect(unknown.status).toBe(200);
    expect(unknown.json).toMatchObject({ verb: 'Fly', success: false, subject: null });
    expect((unknown.json as CommandAnswer).result).toContain("Unknown command 'Fly'");
    const badArgs = await postCommand(stack, { verb: 'SetTime', args: ['noon'] });
    expect(badArgs.json).toMatchObject({
      success: false,
      result: expect.stringContaining("Invalid value 'noon'"),
    });
  });

  it('refuses a verb on the operator blocklist as a normal answer', async () => {
    const res = await postCommand(stack, { verb: 'RestartServer', args: ['5'] });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      success: false,
      result: 'Command RestartServer is blocked on this server',
    });
  });

  it('aims at a player by platform id and returns the player identity as the subject', async () => {
    const player = onlinePlayer(stack.sim!.world);
    const res = await postCommand(stack, { verb: 'Heal', subject: { player: player.platform_id } });
    expect(res.json).toEqual({
      verb: 'Heal',
      success: true,
      result: `Healed ${player.char_name} (${player.platform_id})`,
      subject: {
        kind: 'player',
        player: { platform_id: player.platform_id, social_id: player.social_id },
        position: null,
      },
    });
  });

  it('dispatches a well-formed platform id that never joined, with a null social_id', async () => {
    const before = historyLength(stack);
    const res = await postCommand(stack, { verb: 'ShowPlayerInfo', subject: { player: NEVER_JOINED } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      verb: 'ShowPlayerInfo',
      success: false,
      result: `Player ${NEVER_JOINED} not found`,
      subject: { kind: 'player', player: { platform_id: NEVER_JOINED, social_id: null }, position: null },
    });
    expect(historyLength(stack)).toBe(before + 1);
  });

  it('resolves a social: subject to the linked player', async () => {
    const linked = players.find((p) => p.social_id !== null && p.online) as Player;
    const res = await postCommand(stack, {
      verb: 'Location',
      subject: { player: `social:${linked.social_id}` },
    });
    expect(res.json).toMatchObject({
      success: true,
      subject: { kind: 'player', player: { platform_id: linked.platform_id, social_id: linked.social_id } },
    });
  });

  it('answers 404 for an unlinked social: subject and runs nothing', async () => {
    const player = onlinePlayer(stack.sim!.world, 1);
    const money = player.money;
    const before = historyLength(stack);
    const res = await postCommand(stack, {
      verb: 'ChangeCurrencyBalance',
      args: ['Normal', '100'],
      subject: { player: `social:${UNLINKED_SOCIAL}` },
    });
    expect(res.status).toBe(404);
    expect(errorOf(res.json).code).toBe('not_found');
    expect(historyLength(stack)).toBe(before);
    expect(player.money).toBe(money);
  });

  it('aims at a world position', async () => {
    const res = await postCommand(stack, {
      verb: 'SpawnZombie',
      args: ['3'],
      subject: { x: 10, y: -20.5, z: 30 },
    });
    expect(res.json).toEqual({
      verb: 'SpawnZombie',
      success: true,
      result: 'Spawned 3 x Zombie at X=10 Y=-20.5 Z=30',
      subject: { kind: 'position', player: null, position: { x: 10, y: -20.5, z: 30 } },
    });
  });

  it('changes a balance for real, and the next player read shows it', async () => {
    const player = onlinePlayer(stack.sim!.world, 2);
    const read = async () =>
      ((await stack.call(`/v1/players/${player.platform_id}`)).json as { money: number }).money;
    const before = await read();
    const res = await postCommand(stack, {
      verb: 'ChangeCurrencyBalance',
      args: ['Normal', '-75'],
      subject: { player: player.platform_id },
    });
    expect(res.json).toMatchObject({
      success: true,
      result: expect.stringContaining(`${before} -> ${before - 75}`),
    });
    expect(await read()).toBe(before - 75);
  });

  it('writes the command to the history, attributed to the key owner', async () => {
    await postCommand(stack, { verb: 'Announce', args: ['Welcome', 'to the server'] }, ownedKey);
    const page = (await stack.call('/v1/commands/history?limit=1')).json as HistoryPage;
    expect(page.data[0]).toMatchObject({
      command: '#Announce Welcome "to the server"',
      result: '',
      actor: OWNER,
    });
  });

  it('attributes a command from a key without an owner to nobody: both actor ids null', async () => {
    await postCommand(stack, { verb: 'Online' });
    const page = (await stack.call('/v1/commands/history?limit=1')).json as HistoryPage;
    expect(page.data[0]?.actor).toEqual({ platform_id: null, social_id: null });
  });

  it.each([
    ['no verb', { args: [] }],
    ['an empty verb', { verb: '' }],
    ['a verb of two tokens', { verb: 'Set Weather' }],
    ['a verb with a tab', { verb: 'Online\t' }],
    ['a verb with a non-breaking space', { verb: 'Set\u00a0Time' }],
    ['a verb with a control character', { verb: 'On\u0007line' }],
    ['a verb over 64 characters', { verb: 'V'.repeat(65) }],
    ['a verb that is not a string', { verb: 7 }],
    ['args that are not an array', { verb: 'Announce', args: 'hello' }],
    ['an argument that is not a string', { verb: 'SetTime', args: [6] }],
    ['an argument with a newline', { verb: 'Announce', args: ['line\nbreak'] }],
    ['an argument with a NUL', { verb: 'Announce', args: ['nul\u0000'] }],
    ['an argument with a C1 control', { verb: 'Announce', args: ['c1\u0085'] }],
    ['an empty argument', { verb: 'Announce', args: [''] }],
    ['65 arguments', { verb: 'Announce', args: Array.from({ length: 65 }, () => 'w') }],
    ['an argument over 500 characters', { verb: 'Announce', args: ['a'.repeat(501)] }],
    [
      'a subject with both player and coordinates',
      { verb: 'Heal', subject: { player: '76561190000000001', x: 1, y: 2, z: 3 } },
    ],
    ['a subject with only some coordinates', { verb: 'SpawnZombie', subject: { x: 1, y: 2 } }],
    ['an empty subject', { verb: 'Heal', subject: {} }],
    ['coordinates given as strings', { verb: 'SpawnZombie', subject: { x: '1', y: '2', z: '3' } }],
    ['a malformed player ref', { verb: 'Heal', subject: { player: '12345' } }],
    [
      'a subject with an unknown field',
      { verb: 'Heal', subject: { player: '76561190000000001', name: 'x' } },
    ],
    ['an unknown body field', { verb: 'Online', target: 'all' }],
  ])('refuses %s with 400 and dispatches nothing', async (_what, body) => {
    const before = historyLength(stack);
    const executed = stack.sim!.opCounts.get('commands.execute') ?? 0;
    const res = await postCommand(stack, body);
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('validation_error');
    expect(historyLength(stack)).toBe(before);
    expect(stack.sim!.opCounts.get('commands.execute') ?? 0).toBe(executed);
  });

  it('says why a subject with both player and coordinates is refused', async () => {
    const res = await postCommand(stack, {
      verb: 'Heal',
      subject: { player: NEVER_JOINED, x: 1, y: 2, z: 3 },
    });
    expect(errorOf(res.json).message).toContain('never both');
  });

  it('needs the commands:execute scope', async () => {
    const readOnly = await newKey(stack, '--name', 'reader', '--scopes', 'commands:read');
    const res = await postCommand(stack, { verb: 'Online' }, readOnly);
    expect(res.status).toBe(403);
    expect(errorOf(res.json)).toMatchObject({
      code: 'insufficient_scope',
      details: { missing_scope: 'commands:execute' },
    });
  });
});
