import { describe, expect, it } from 'vitest';
import { OPS, type OpArgs, type OpResult } from '../../../protocol/ops/index.ts';
import { commandHandlers, type CommandOpName } from '../../../mod-sim/handlers/commands.ts';
import { API_ACTOR, consoleWorld, onlinePlayer } from '../console/console-support.ts';

function harness() {
  const t = consoleWorld();
  const handlers = commandHandlers(t.world, t.console);
  const call = async <N extends CommandOpName>(name: N, args: OpArgs<N>, opId?: string) => {
    const op = OPS[name];
    const handler = handlers[name] as (args: unknown, ctx: unknown) => unknown;
    const result = await handler(op.args.parse(args), { opId, signal: new AbortController().signal });
    return op.result.parse(result) as OpResult<N>;
  };
  return { ...t, call };
}

const execute = (verb: string, args: string[], subject: OpArgs<'commands.execute'>['subject'] = null) => ({
  verb,
  args,
  subject,
  actor: API_ACTOR,
});

describe('commands.execute', () => {
  it('answers the game result with the subject it resolved', async () => {
    const h = harness();
    const player = onlinePlayer(h.world);
    const result = await h.call(
      'commands.execute',
      execute('Heal', [], { player: { platform_id: player.platform_id } }),
    );
    expect(result).toEqual({
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

  it('shows a position subject and no subject for a server-wide command', async () => {
    const h = harness();
    const spawn = await h.call(
      'commands.execute',
      execute('SpawnZombie', [], { position: { x: 1, y: 2, z: 3 } }),
    );
    expect(spawn.subject).toEqual({ kind: 'position', player: null, position: { x: 1, y: 2, z: 3 } });
    expect((await h.call('commands.execute', execute('Online', []))).subject).toBeNull();
  });

  it('runs a repeated op id once and answers the first result', async () => {
    const h = harness();
    const player = onlinePlayer(h.world);
    const money = player.money;
    const args = execute('ChangeCurrencyBalance', ['Normal', '100'], {
      player: { platform_id: player.platform_id },
    });
    const first = await h.call('commands.execute', args, 'op-currency-1');
    const entries = h.world.commands.history.length;
    const retry = await h.call('commands.execute', args, 'op-currency-1');
    expect(retry).toEqual(first);
    expect(player.money).toBe(money + 100);
    expect(h.world.commands.history.length).toBe(entries);
    await h.call('commands.execute', args, 'op-currency-2');
    expect(player.money).toBe(money + 200);
  });
});

describe('commands.history', () => {
  it('pages newest first and continues after the position it returned', async () => {
    const h = harness();
    const all = h.world.commands.history.query(undefined, 30).items;
    const first = await h.call('commands.history', { after: null, limit: 10 });
    const second = await h.call('commands.history', { after: first.next, limit: 10 });
    expect([...first.data, ...second.data]).toEqual(all.slice(0, 20));
  });

  it('filters by contained text and inclusive bounds', async () => {
    const h = harness();
    const page = await h.call('commands.history', {
      command: 'Spawn',
      start_date: '2025-01-01 00:00:00.000',
      end_date: '2025-03-31 23:59:59.999',
      after: null,
      limit: 100,
    });
    expect(page.data.length).toBeGreaterThan(0);
    for (const entry of page.data) {
      expect(entry.command).toContain('Spawn');
      expect(entry.at >= '2025-01-01' && entry.at <= '2025-03-31 23:59:59.999').toBe(true);
    }
  });

  it('refuses a position it never handed out', async () => {
    const h = harness();
    await expect(h.call('commands.history', { after: '-1', limit: 10 })).rejects.toMatchObject({
      code: 'invalid',
    });
  });
});

describe('commands.catalog', () => {
  it('answers the world catalogue once built', async () => {
    const h = harness();
    const catalog = await h.call('commands.catalog', {});
    expect(catalog).toEqual(h.world.commands.catalog);
  });
});
