/**
 * What the fuzzer runs against: a real `modgate serve` and a linked `modgate sim`, as separate
 * processes on free loopback ports, over a throwaway data dir with the API enabled, premium on
 * and an all-scopes key (harness/data-dir.ts). The config lifts the per-key and per-address
 * rate limits and the per-address connection cap, so the fuzzer's volume from one address is
 * not what answers; everything else is the daemon's default. `--binary` runs the single
 * executable instead of bin/modgate.js.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { launchServe, startSim, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';
import type { IdPool } from './operations.ts';

export interface FuzzStack {
  apiPort: number;
  key: string;
  serve: ModgateProcess;
  sim: ModgateProcess;
  ids: IdPool;
  close(): Promise<void>;
}

const CONFIG = `[api]
max_connections = 4096
max_connections_per_address = 4096

[rate_limit]
per_key = { limit = 1000000000, window_sec = 60 }
per_address = { limit = 1000000000, window_sec = 60 }

[log]
level = "warn"
format = "json"
`;

export async function startFuzzStack(binary: string | null): Promise<FuzzStack> {
  const data: TestDataDir = await makeDataDir();
  const { key } = await data.createKey('--name', 'fuzz');
  const config = join(data.dir, '..', `${data.dir.split('/').pop()}.toml`);
  await writeFile(config, CONFIG);
  const program = binary ? { program: [binary] } : {};
  const { serve, apiPort, modPort } = await launchServe(data.dir, {
    ...program,
    extra: ['--config', config],
  });
  const sim = startSim(data.dir, modPort, ['--seed', '1'], program);
  const close = async () => {
    await Promise.all([stop(sim), stop(serve)]);
    await Promise.all([data.remove(), rm(config, { force: true })]);
  };
  try {
    await eventually(async () => (await health(apiPort))?.mod_connected === true, 60_000);
    return { apiPort, key, serve, sim, ids: await worldIds(apiPort, key), close };
  } catch (error) {
    await close();
    throw new Error(`the stack did not come up: ${String(error)}\n${serve.output().slice(-2_000)}`, {
      cause: error,
    });
  }
}

/** `/healthz`, or null when it does not answer within 5 s. */
export async function health(port: number): Promise<{ mod_connected: boolean } | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return (await response.json()) as { mod_connected: boolean };
  } catch {
    return null;
  }
}

/** Ids the simulated world holds, so valid requests name real players and squads. */
async function worldIds(port: number, key: string): Promise<IdPool> {
  const list = async (path: string, field: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = (await response.json()) as { data?: Array<Record<string, unknown>> };
    return (body.data ?? []).map((row) => String(row[field])).filter((id) => id !== 'undefined');
  };
  return {
    players: await list('/v1/players?limit=100', 'platform_id'),
    squads: await list('/v1/squads?limit=100', 'id'),
  };
}
