/**
 * Issue 24, item 2: one address cannot lock everyone out. `modgate serve` runs as its own
 * process with a small global cap (`[api] max_connections`, so the test stays light); 127.0.0.2
 * keeps more reconnecting silent sockets open than the cap while 127.0.0.1 asks on a fresh
 * connection each time. Asserts the share served, not speed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../support/data-dir.ts';
import { startServe, stop, type Running } from '../support/processes.ts';
import { askOnce, floodSockets, successRatio } from '../support/socket-flood.ts';
import { eventually } from '../support/stack.ts';

const MAX_CONNECTIONS = 32;
const FLOOD_SOCKETS = 80;

describe('a flood of reconnecting silent sockets from one address', () => {
  let data: TestDataDir;
  let key: string;
  let serve: Running;
  let apiPort: number;

  beforeAll(async () => {
    data = await makeDataDir();
    key = (await data.createKey('--name', 'client')).key;
    const config = join(data.dir, 'modgate.toml');
    await writeFile(config, `[api]\nmax_connections = ${MAX_CONNECTIONS}\n`);
    ({ serve, apiPort } = await startServe(data.dir, ['--config', config]));
  }, 30_000);

  afterAll(async () => {
    if (serve) await stop(serve);
    await data?.remove();
  });

  it('fills the global cap, yet another address keeps at least 95% of its requests served', async () => {
    const flood = floodSockets(apiPort, '127.0.0.2', FLOOD_SOCKETS);
    try {
      // The cap is full and the flooder is being refused and reconnecting.
      await eventually(() => flood.opened() > FLOOD_SOCKETS * 2, 20_000);
      const ask = () => askOnce(apiPort, '/v1/events?limit=1', { authorization: `Bearer ${key}` });
      const { ratio, statuses } = await successRatio(ask, 40, 50);
      expect(ratio, `statuses: ${statuses.join(' ')}`).toBeGreaterThanOrEqual(0.95);
    } finally {
      flood.stop();
    }
  }, 60_000);
});
