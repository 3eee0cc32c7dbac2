/**
 * Issue 24, item 2: one address cannot lock everyone out. `modgate serve` runs as its own
 * process with a small global cap (`[api] max_connections`, so the test stays light); 127.0.0.2
 * keeps more reconnecting silent sockets open than the cap while 127.0.0.1 asks on a fresh
 * connection each time. Then the same with sockets that send the start of a request head and
 * stall, from several addresses and from one trusted proxy. Asserts the share served, not speed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { askOnce, type Flood, floodSockets, PARTIAL_HEAD, successRatio } from '../../harness/socket-flood.ts';
import { eventually } from '../../harness/stack.ts';

const MAX_CONNECTIONS = 32;
const FLOOD_SOCKETS = 80;
/** Each holds the per-address cap; together, more than the global cap. */
const STALLING = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
const PER_ADDRESS = 10;
const PROXY = '127.0.0.9';

interface Served {
  apiPort: number;
  key: string;
}

/** `modgate serve` with these `[api]` lines for the tests of the enclosing describe. */
function serving(apiConfig: string): Served {
  const served = { apiPort: 0, key: '' };
  let data: TestDataDir;
  let serve: ModgateProcess;
  beforeAll(async () => {
    data = await makeDataDir();
    served.key = (await data.createKey('--name', 'client')).key;
    const config = join(data.dir, 'modgate.toml');
    await writeFile(config, `[api]\n${apiConfig}`);
    ({ serve, apiPort: served.apiPort } = await startServe(data.dir, { extra: ['--config', config] }));
  });
  afterAll(async () => {
    if (serve) await stop(serve);
    await data?.remove();
  });
  return served;
}

/**
 * Once the floods fill the cap and are being refused and reconnecting, the share of 127.0.0.1's
 * requests served; the floods are stopped after.
 */
async function servedDuring(daemon: Served, floods: Flood[], sockets: number) {
  const opened = () => floods.reduce((total, flood) => total + flood.opened(), 0);
  try {
    await eventually(() => opened() > sockets * 2);
    const ask = () =>
      askOnce(daemon.apiPort, '/v1/events?limit=1', { authorization: `Bearer ${daemon.key}` });
    return await successRatio(ask, 40, 50);
  } finally {
    for (const flood of floods) flood.stop();
  }
}

describe('a flood of reconnecting silent sockets from one address', () => {
  const daemon = serving(`max_connections = ${MAX_CONNECTIONS}\n`);

  it('fills the global cap, yet another address keeps at least 95% of its requests served', async () => {
    const flood = floodSockets(daemon.apiPort, '127.0.0.2', FLOOD_SOCKETS);
    const { ratio, statuses } = await servedDuring(daemon, [flood], FLOOD_SOCKETS);
    expect(ratio, `statuses: ${statuses.join(' ')}`).toBeGreaterThanOrEqual(0.95);
  }, 60_000);
});

describe('a flood of reconnecting sockets that each send part of a request head and stall', () => {
  const daemon = serving(
    `max_connections = ${MAX_CONNECTIONS}\nmax_connections_per_address = ${PER_ADDRESS}\n` +
      `trusted_proxies = ["${PROXY}"]\n`,
  );

  it('from several addresses fills the global cap, yet another address keeps at least 95% served', async () => {
    const floods = STALLING.map((address) =>
      floodSockets(daemon.apiPort, address, PER_ADDRESS, { send: PARTIAL_HEAD }),
    );
    const { ratio, statuses } = await servedDuring(daemon, floods, STALLING.length * PER_ADDRESS);
    expect(ratio, `statuses: ${statuses.join(' ')}`).toBeGreaterThanOrEqual(0.95);
  }, 60_000);

  it('from one trusted proxy fills the global cap, yet another address keeps at least 95% served', async () => {
    const flood = floodSockets(daemon.apiPort, PROXY, FLOOD_SOCKETS, { send: PARTIAL_HEAD });
    const { ratio, statuses } = await servedDuring(daemon, [flood], FLOOD_SOCKETS);
    expect(ratio, `statuses: ${statuses.join(' ')}`).toBeGreaterThanOrEqual(0.95);
  }, 60_000);
});
