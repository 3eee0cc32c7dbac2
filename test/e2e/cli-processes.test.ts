/**
 * The README's "ModgateProcess it for real", as separate processes: `modgate init`, `plan set`,
 * `api enable`, `keys create`, then `serve` and `sim` through bin/modgate.js as `npx modgate`
 * runs them, over real sockets. The one ordinary serve + sim file that does: the rest of the
 * suite runs a bundle of the CLI (test/support/cli-bundle-setup.ts), so this keeps tsx's path
 * covered. The four setup commands run from the bundle: through tsx, on a machine under load,
 * they alone outlasted the hook's 60 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../harness/stack.ts';
import {
  FROM_SOURCE,
  runModgate,
  startServeAndSim,
  startSim,
  stop,
  type ModgateProcess,
} from '../../harness/processes.ts';

describe('modgate as separate processes', () => {
  let dir: string;
  let key: string;
  let serve: ModgateProcess;
  let sim: ModgateProcess;
  let apiPort: number;
  let modPort: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-e2e-'));
    const modgate = (...args: string[]) => runModgate([...args, '--data-dir', dir]);
    await modgate('init', '--name', 'E2E server');
    await modgate('plan', 'set', '--premium', 'on');
    await modgate('api', 'enable');
    key = JSON.parse(
      (await modgate('keys', 'create', '--name', 'e2e', '--scopes', 'server:read', '--json')).stdout,
    ).key;
    const simExtra = ['--players', '50', '--seed', '7'];
    ({ serve, sim, apiPort, modPort } = await startServeAndSim(dir, { simExtra, program: FROM_SOURCE }));
  });

  afterAll(async () => {
    await Promise.all([sim && stop(sim), serve && stop(serve)]);
    await rm(dir, { recursive: true, force: true });
  });

  it('answers GET /v1/server with 200 through the simulator', async () => {
    const res = await fetch(`http://127.0.0.1:${apiPort}/v1/server`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ name: 'E2E server', online: true, mod_version: '2.1.0' });
    expect(Object.keys(body).sort()).toEqual(['mod_version', 'name', 'online', 'player_count', 'server_id']);
  });

  it('logs each request as one JSON line with the request id and never the key', async () => {
    const res = await fetch(`http://127.0.0.1:${apiPort}/v1/server`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const requestId = res.headers.get('x-request-id') as string;
    await eventually(() => serve.output().includes(requestId));
    const line = serve
      .output()
      .split('\n')
      .find((l) => l.includes(requestId)) as string;
    expect(JSON.parse(line)).toMatchObject({ msg: 'request', status: 200, route: '/v1/server' });
    expect(serve.output()).not.toContain(key.slice(8));
  });

  it('answers 503 while the mod is gone and 200 again once it redials', async () => {
    expect(await stop(sim)).toBe(0);
    const url = `http://127.0.0.1:${apiPort}/v1/server`;
    const headers = { authorization: `Bearer ${key}` };
    // Each answer is read to the end, so its connection is reused: a poller that leaves them open
    // would soon hold 64 connections, the per-address cap.
    const status = async () => {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      return response.status;
    };
    await eventually(async () => (await status()) === 503);
    // Waits for serve to log the new link, not for a 200: polling /v1 for as long as tsx takes to
    // start the simulator on a loaded machine spent the key's rate limit, and 429 came instead.
    const links = () => serve.output().split('"msg":"mod connected"').length;
    const before = links();
    sim = startSim(dir, modPort, [], { program: FROM_SOURCE });
    await eventually(() => links() > before);
    expect(await status()).toBe(200);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    expect(await stop(serve)).toBe(0);
  });
});
