import { describe, expect, it } from 'vitest';
import { consoleStateOf } from '../../../mod-sim/console/index.ts';
import { at, consoleWorld, newest, offlinePlayer, onlinePlayer } from './console-support.ts';

describe('currency verbs', () => {
  it('adds a signed amount to the bank balance and reports both balances', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const { money, gold } = player;
    const outcome = t.api('ChangeCurrencyBalance', ['Normal', '250'], at(player));
    expect(outcome.success).toBe(true);
    expect(player.money).toBe(money + 250);
    expect(outcome.result).toBe(
      `Changed Normal balance of ${player.char_name} (${player.platform_id}) by +250: ${money} -> ${money + 250}`,
    );
    expect(outcome.effects).toEqual([
      {
        kind: 'currency',
        platform_id: player.platform_id,
        currency: 'cash',
        mode: 'delta',
        amount: 250,
        before: { cash: money, gold },
        after: { cash: money + 250, gold },
      },
    ]);
  });

  it('lets a debit take gold below zero', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const gold = player.gold;
    expect(t.api('ChangeCurrencyBalance', ['gold', String(-(gold + 10))], at(player)).success).toBe(true);
    expect(player.gold).toBe(-10);
  });

  it('sets a balance of 0 or more and refuses a negative one', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    expect(t.api('SetCurrencyBalance', ['Gold', '0'], at(player)).success).toBe(true);
    expect(player.gold).toBe(0);
    expect(t.api('SetCurrencyBalance', ['Normal', '1234'], at(player)).result).toContain('-> 1234');
    expect(player.money).toBe(1234);
    const refused = t.api('SetCurrencyBalance', ['Normal', '-1'], at(player));
    expect(refused.success).toBe(false);
    expect(player.money).toBe(1234);
  });

  it('refuses an amount of 0, an offline player and an overflow, changing nothing', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const offline = offlinePlayer(t.world);
    player.money = 10;
    const before = [player.money, offline.money];
    expect(t.api('ChangeCurrencyBalance', ['Normal', '0'], at(player)).success).toBe(false);
    expect(t.api('ChangeCurrencyBalance', ['Normal', '5'], at(offline)).result).toContain('is not online');
    expect(t.api('ChangeCurrencyBalance', ['Normal', '2147483647'], at(player)).result).toContain('overflow');
    expect([player.money, offline.money]).toEqual(before);
  });
});

describe('player verbs', () => {
  it('kicks a connected player off the server', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const count = t.world.players.onlineCount();
    expect(t.api('Kick', ['afk'], at(player)).result).toBe(
      `Kicked ${player.char_name} (${player.platform_id}): afk`,
    );
    expect(player.online).toBe(false);
    expect(t.world.players.onlineCount()).toBe(count - 1);
  });

  it('teleports a player to a position on the map and refuses one off it', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    expect(t.api('Teleport', ['100.5', '-200', '30'], at(player)).success).toBe(true);
    expect(player.live?.position).toEqual({ x: 100.5, y: -200, z: 30 });
    expect(t.api('Teleport', ['5000000', '0', '0'], at(player)).success).toBe(false);
  });

  it('refuses TeleportTo from the API: there is no admin body to move', () => {
    const t = consoleWorld();
    const outcome = t.api('TeleportTo', [], at(onlinePlayer(t.world)));
    expect(outcome).toMatchObject({
      success: false,
      result: 'TeleportTo moves the admin who runs it: run it in game',
    });
  });

  it('kills and heals, and toggles live flags', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    player.live!.alive = true;
    expect(t.api('Kill', [], at(player)).success).toBe(true);
    expect(player.live?.alive).toBe(false);
    expect(t.api('Kill', [], at(player)).success).toBe(false);
    t.api('Heal', [], at(player));
    expect(player.live).toMatchObject({ alive: true, conscious: true });
    t.api('SetSuperJump', ['on'], at(player));
    t.api('SetImmortal', ['On'], at(player));
    expect(player.live).toMatchObject({ super_jump: true, immortal: true });
  });

  it('sets skills, attributes and fame within their ranges', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    expect(t.api('SetSkillLevel', ['archery', '3.5'], at(player)).success).toBe(true);
    expect(t.world.players.details(player).skills['Archery']).toBe(3.5);
    expect(t.api('SetSkillLevel', ['Archery', '4.5'], at(player)).success).toBe(false);
    t.api('SetAttribute', ['Strength', '7.25'], at(player));
    expect(player.attributes.strength).toBe(7.25);
    t.api('SetFamePoints', ['99.5'], at(player));
    expect(player.fame_points).toBe(99.5);
  });

  it('clears the inventory', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const items = t.world.players.inventory(player).length;
    expect(t.api('ClearInventory', [], at(player)).result).toContain(`Removed ${items} item(s)`);
    expect(t.world.players.inventory(player)).toEqual([]);
  });
});

describe('moderation verbs', () => {
  it('bans for the hours given through the same logic as the ban op, attributed to the actor', () => {
    const t = consoleWorld();
    const player = offlinePlayer(t.world);
    player.moderation.ban = { ...player.moderation.ban, banned: false };
    expect(t.api('Ban', ['3'], at(player)).result).toContain('for 3 hour(s)');
    const ban = player.moderation.ban;
    expect(ban).toMatchObject({ banned: true, permanent: false });
    expect(Date.parse(ban.expires_at!) - Date.parse(ban.banned_at!)).toBe(3 * 3_600_000);
    expect(ban.banned_by).toMatchObject({ platform_id: '76561190000000077', name: 'Console Bot' });
    expect(t.api('Unban', [], at(player)).result).toContain('Unbanned');
    expect(player.moderation.ban.banned).toBe(false);
    expect(t.api('Unban', [], at(player)).result).toContain('is not banned');
  });

  it('puts a platform id that never joined on the moderation list', () => {
    const t = consoleWorld();
    const id = '76561199999999902';
    expect(t.api('Ban', [], { player: { platform_id: id } }).result).toBe(`Banned ${id} permanently`);
    expect(t.world.players.moderationListed(id)?.moderation.ban.banned).toBe(true);
  });

  it('mutes and unmutes a platform id that never joined, on the moderation list', () => {
    const t = consoleWorld();
    const id = '76561199999999903';
    expect(t.api('Mute', ['30'], { player: { platform_id: id } }).result).toBe(`Muted ${id} for 60 minutes`);
    expect(t.world.players.moderationListed(id)?.moderation.mute.muted).toBe(true);
    expect(t.api('Unmute', [], { player: { platform_id: id } }).result).toBe(`Unmuted ${id}`);
    expect(t.api('Unmute', [], { player: { platform_id: id } }).result).toBe(`${id} is not muted`);
  });

  it('mutes rounded up to whole hours on every channel', () => {
    const t = consoleWorld();
    const player = offlinePlayer(t.world);
    expect(t.api('Mute', ['90'], at(player)).result).toContain('for 120 minutes');
    expect(player.moderation.mute).toMatchObject({ muted: true, duration_minutes: 120 });
    expect(t.api('Unmute', [], at(player)).result).toContain('Unmuted');
  });
});

describe('server-wide verbs and spawners', () => {
  it('changes weather and time of day and remembers announcements', () => {
    const t = consoleWorld();
    const state = consoleStateOf(t.world);
    t.api('SetWeather', ['Storm']);
    t.api('SetTime', ['6']);
    expect(t.api('Announce', ['Hello', 'world'])).toMatchObject({ success: true, result: '' });
    expect(state).toMatchObject({ weather: 'Storm', hour: 6 });
    expect(state.announcements.at(-1)?.text).toBe('Hello world');
    expect(t.api('SetTime', ['24']).success).toBe(false);
  });

  it('lists connected players, one line each after a count', () => {
    const t = consoleWorld();
    const lines = t.api('ListPlayers').result.split('\n');
    expect(lines[0]).toBe(`${t.world.players.onlineCount()} players online`);
    expect(lines[1]).toContain(onlinePlayer(t.world).platform_id);
  });

  it('explains a verb with Help and lists only verbs within the rank', () => {
    const t = consoleWorld();
    expect(t.api('Help', ['SetWeather']).result).toContain('Usage: #SetWeather <weather>');
    expect(t.api('Help').result).toContain('#ReloadConfig');
  });

  it('spawns at a position or at a player, checking the class and the count', () => {
    const t = consoleWorld();
    const player = onlinePlayer(t.world);
    const item = t.api('SpawnItem', ['weapon_ak47', '2'], { position: { x: 1, y: 2, z: 3 } });
    expect(item.result).toBe('Spawned 2 x Weapon_AK47 at X=1 Y=2 Z=3');
    expect(t.api('SpawnVehicle', ['BPC_Laika'], at(player)).success).toBe(true);
    expect(t.api('SpawnItem', ['Weapon_Banana'], at(player)).result).toBe("Unknown item 'Weapon_Banana'");
    expect(t.api('SpawnZombie', ['51'], at(player)).result).toBe('Count must be 1 to 50');
    expect(newest(t.world).result).toBe('Count must be 1 to 50');
  });

  it('counts zombies spawned and wiped', () => {
    const t = consoleWorld();
    const state = consoleStateOf(t.world);
    const before = state.zombies;
    t.api('SpawnZombie', ['5'], { position: { x: 0, y: 0, z: 0 } });
    expect(t.api('WipeZombies').result).toBe(`Removed ${before + 5} zombies`);
    expect(state.zombies).toBe(0);
  });

  it('destroys an existing vehicle once and refuses an unknown one', () => {
    const t = consoleWorld();
    const vehicle = t.world.assets.vehicles.itemAt(0);
    expect(t.api('DestroyVehicle', [vehicle.entity_id]).success).toBe(true);
    expect(t.api('DestroyVehicle', [vehicle.entity_id]).success).toBe(false);
    expect(t.api('DestroyVehicle', ['1']).result).toBe('No vehicle with id 1');
  });
});
