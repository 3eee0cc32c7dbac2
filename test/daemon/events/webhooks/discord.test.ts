import { describe, expect, it } from 'vitest';
import { discordEmbed, discordMessage } from '../../../../daemon/events/webhooks/discord.ts';
import type { StoredEvent } from '../../../../daemon/events/types.ts';
import { discordViolations } from '../../../support/discord-shape.ts';

const ban: StoredEvent = {
  id: 7,
  type: 'player.banned',
  at: '2030-01-01T12:00:00.000Z',
  data: {
    player: { platform_id: '76561198000000001', social_id: null },
    actor: { platform_id: '76561198000000002', social_id: null, name: 'Admin Ann' },
    reason: 'Griefing the spawn',
    duration: 3,
    duration_unit: 'days',
  },
};

describe('Discord messages', () => {
  it('says what happened, to whom, by whom and why in one embed', () => {
    const embed = discordEmbed(ban);
    expect(embed.title).toBe('Player banned');
    expect(embed.timestamp).toBe(ban.at);
    expect(embed.fields).toEqual(
      expect.arrayContaining([
        { name: 'Player', value: '76561198000000001', inline: true },
        { name: 'By', value: 'Admin Ann (76561198000000002)', inline: true },
        { name: 'Reason', value: 'Griefing the spawn', inline: false },
        { name: 'Duration', value: '3', inline: true },
      ]),
    );
    expect(discordViolations(discordMessage([ban]).message)).toEqual([]);
  });

  it('puts at most ten events in a message and keeps every text inside the limits', () => {
    const long = 'x'.repeat(10_000);
    const events = Array.from({ length: 14 }, (_, i) => ({
      ...ban,
      id: i + 1,
      data: { ...ban.data, reason: long, command: long, result: long },
    }));
    const { message, count } = discordMessage(events);
    expect(count).toBeLessThanOrEqual(10);
    expect(count).toBeGreaterThan(0);
    expect(message.embeds).toHaveLength(count);
    expect(discordViolations(message)).toEqual([]);
  });

  it('never mentions anyone: allowed_mentions parses nothing', () => {
    const { message } = discordMessage([{ ...ban, data: { reason: '@everyone look' } }]);
    expect(message.allowed_mentions).toEqual({ parse: [] });
  });

  it('escapes Markdown, masked links and mentions in names, reasons and messages', () => {
    const hostile: StoredEvent = {
      ...ban,
      data: {
        player: { platform_id: '76561198000000001', name: '[Free Nitro](https://evil.example/x)' },
        actor: { platform_id: '76561198000000002', name: '**Admin** <@123> @everyone' },
        reason: '# Verified\n> quoted\n- listed\n1. ordered ||spoiler|| `code` ~~gone~~ __u__',
        command: 'say <https://evil.example> :skull:',
      },
    };
    const embed = discordEmbed(hostile);
    const values = Object.fromEntries(embed.fields.map((f) => [f.name, f.value]));
    expect(values['Player']).toBe('\\[Free Nitro\\](https\\://evil.example/x) (76561198000000001)');
    expect(values['By']).toBe('\\*\\*Admin\\*\\* \\<\\@123\\> \\@everyone (76561198000000002)');
    expect(values['Reason']).toBe(
      '\\# Verified\n\\> quoted\n\\- listed\n1\\. ordered \\|\\|spoiler\\|\\| \\`code\\` \\~\\~gone\\~\\~ \\_\\_u\\_\\_',
    );
    expect(values['Command']).toBe('say \\<https\\://evil.example\\> \\:skull\\:');
    expect(embed.description).toContain('**\\[Free Nitro\\](https\\://evil.example/x)');
    expect(embed.description).toContain('by \\*\\*Admin\\*\\* \\<\\@123\\>');
    expect(discordMessage([hostile]).message.allowed_mentions).toEqual({ parse: [] });
  });
});
