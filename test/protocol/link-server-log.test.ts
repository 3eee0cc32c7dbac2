/**
 * What the operator reads about the mod link (docs/operations.md, "Logs"): real daemon, real
 * simulator and real sockets, with the daemon's own JSON logger captured.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/log/log.ts';
import { generateIdentity } from '../../protocol/keys.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import {
  closeOf,
  identities,
  rawClient,
  rawModSession,
  runCleanups,
  startBridge,
  startServer,
} from './support.ts';

afterEach(runCleanups);

interface Line {
  level: string;
  msg: string;
  event?: string;
  close_code?: number;
  code?: string;
}

function captured(): { log: ReturnType<typeof createLogger>; lines: Line[] } {
  const lines: Line[] = [];
  const log = createLogger({ level: 'info', write: (text) => void lines.push(JSON.parse(text) as Line) });
  return { log, lines };
}

const withEvent = (lines: Line[], event: string): Line[] => lines.filter((line) => line.event === event);

describe('mod-link logging on the daemon', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('logs mod connected and mod disconnected once each, with snake_case events', async () => {
    const { log, lines } = captured();
    stack = await startStack({ sim: false, daemon: { log } });
    const sim = await stack.startSim();
    await sim.close();
    await eventually(() => withEvent(lines, 'mod_disconnected').length > 0);
    expect(lines.filter((line) => line.msg === 'mod connected')).toHaveLength(1);
    expect(lines.filter((line) => line.msg === 'mod disconnected')).toHaveLength(1);
    expect(withEvent(lines, 'mod_connected')[0]).toMatchObject({
      level: 'info',
      mod_version: expect.any(String),
    });
    expect(withEvent(lines, 'mod_disconnected')[0]).toMatchObject({ level: 'warn', close_code: 4000 });
  });

  it('warns at start when mod-credentials.json points the mod at another port', async () => {
    const { log, lines } = captured();
    stack = await startStack({ sim: false, daemon: { log } }); // the link listens on an ephemeral port
    expect(withEvent(lines, 'mod_credentials_url_mismatch')[0]).toMatchObject({
      level: 'warn',
      url: 'ws://127.0.0.1:8788',
    });
  });

  it('logs a mod that refuses this daemon with 4031 unknown_identity', async () => {
    const { log, lines } = captured();
    const ids = identities();
    const { url } = await startServer(ids, { log });
    const bridge = startBridge({ mod: ids.mod, daemon: generateIdentity() }, url, {
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await once(bridge, 'error');
    await eventually(() => withEvent(lines, 'mod_link_closed_in_handshake').length > 0);
    expect(withEvent(lines, 'mod_link_closed_in_handshake')[0]).toMatchObject({
      level: 'warn',
      close_code: 4031,
      code: 'unknown_identity',
    });
  });

  it('logs a message over the size limit as 1009, during the handshake and on an open link', async () => {
    const { log, lines } = captured();
    const ids = identities();
    const { url } = await startServer(ids, { log, maxPayload: 64 * 1024 });
    const stranger = await rawClient(url);
    stranger.send(Buffer.alloc(128 * 1024));
    expect((await closeOf(stranger)).code).toBe(1009);
    await eventually(() => withEvent(lines, 'mod_link_closed_in_handshake').length > 0);
    expect(withEvent(lines, 'mod_link_closed_in_handshake')[0]).toMatchObject({ close_code: 1009 });

    const { socket } = await rawModSession(url, ids);
    socket.send(Buffer.alloc(128 * 1024));
    expect((await closeOf(socket)).code).toBe(1009);
    await eventually(() => withEvent(lines, 'mod_disconnected').length > 0);
    expect(withEvent(lines, 'mod_disconnected')[0]).toMatchObject({ close_code: 1009 });
    expect(withEvent(lines, 'mod_link_message_too_large')).toHaveLength(2);
  });
});
