/**
 * Valid game event payloads for tests that push events through the mod link by hand: the daemon
 * checks each event's `data` against its type's shape (PROTOCOL §9.5) and refuses anything else.
 */

/** A `command.executed` payload (a command history entry); `command` and `result` mark it. */
export function commandData(command: string, result = ''): Record<string, unknown> {
  return { at: '2025-06-01 12:00:00.000', command, result, actor: null };
}

/** A `player.banned` payload for the player `platformId`. */
export function banData(platformId = '76561190000000001'): Record<string, unknown> {
  return {
    player: { platform_id: platformId, social_id: null },
    ban: {
      banned: true,
      reason: 'griefing',
      permanent: false,
      expires_at: '2025-06-01T12:05:00.000Z',
      banned_at: '2025-06-01T12:00:00.000Z',
      banned_by: { platform_id: null, social_id: null, name: 'console' },
    },
  };
}
