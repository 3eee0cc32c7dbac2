/**
 * Issue 12, item 1 on the mod-link port, end to end: a real daemon, a flood of 2,000 TCP
 * connections to its mod-link port that never send a byte, then the real simulator connects and
 * a client's request is served through the HTTP API. The test asserts service, not speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentFlood, type SilentSockets } from '../support/sockets.ts';
import { startStack, type Stack } from '../../harness/stack.ts';

let stack: Stack | undefined;
let flood: SilentSockets | undefined;

afterEach(async () => {
  flood?.release();
  await stack?.close();
  stack = undefined;
  flood = undefined;
});

describe('the mod-link port during a flood of silent sockets', () => {
  it('lets the simulator connect and serve requests while 2,000 silent sockets are open', async () => {
    stack = await startStack({ sim: false, daemon: { link: { handshakeTimeoutMs: 60_000 } } });
    const { host, port } = stack.daemon.modLink;
    flood = await silentFlood(host, port, 2_000);
    await stack.startSim();
    const response = await fetch(`${stack.baseUrl}/v1/server`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
    expect(response.status).toBe(200);
    expect(stack.daemon.link.peer?.modVersion).toBeTruthy();
    expect(stack.daemon.link.pendingConnections).toBeLessThanOrEqual(8);
  });

  it('closes silent sockets once the handshake timeout has passed', async () => {
    stack = await startStack({ sim: false, daemon: { link: { handshakeTimeoutMs: 200 } } });
    const { host, port } = stack.daemon.modLink;
    flood = await silentFlood(host, port, 50);
    await eventuallyClosed(flood);
    expect(flood.open()).toBe(0);
    expect(stack.daemon.link.pendingConnections).toBe(0);
  });
});

async function eventuallyClosed(sockets: SilentSockets): Promise<void> {
  await Promise.all(
    sockets.sockets.map((socket) =>
      socket.destroyed ? null : new Promise((resolve) => socket.once('close', resolve)),
    ),
  );
}
