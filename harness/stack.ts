/**
 * A real daemon and a real simulator on ephemeral loopback ports: what end-to-end tests and most
 * pipeline tests run against. `handle` is the daemon's in-process core (no HTTP socket);
 * `fetch` goes through the real HTTP listener.
 */
import { startDaemon, type Daemon, type DaemonOptions } from '../daemon/daemon.ts';
import { formatHostPort } from '../daemon/host-port.ts';
import { bodyText, makeRequest, type ApiResponse } from '../daemon/http/types.ts';
import { silentLogger } from '../daemon/log/log.ts';
import { DataDir } from '../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { startSimulator, type Simulator, type SimulatorOptions } from '../mod-sim/simulator.ts';
import { makeDataDir, type DataDirSetup, type TestDataDir } from './data-dir.ts';

export interface StackOptions {
  dataDir?: DataDirSetup;
  daemon?: Partial<Omit<DaemonOptions, 'dataDir'>>;
  /** Simulator options; `false` starts no simulator (the mod is offline). */
  sim?: Partial<Omit<SimulatorOptions, 'url' | 'identity' | 'daemonPublicKey'>> | false;
}

export interface Stack {
  data: TestDataDir;
  /** The running daemon; a test that restarts it assigns the new one here. */
  daemon: Daemon;
  sim: Simulator | null;
  /** An all-scopes key. */
  key: string;
  baseUrl: string;
  /** Calls the in-process core with the all-scopes key unless headers say otherwise. */
  call(path: string, init?: CallInit): Promise<ApiResponse & { json: unknown }>;
  /** Starts (another) simulator with the data dir's mod credentials. */
  startSim(
    options?: Partial<Omit<SimulatorOptions, 'url' | 'identity' | 'daemonPublicKey'>>,
  ): Promise<Simulator>;
  close(): Promise<void>;
}

export interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  remoteAddress?: string;
  /** Send no Authorization header. */
  anonymous?: boolean;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const data = await makeDataDir(options.dataDir);
  const { key } = await data.createKey('--name', 'all-scopes');
  const daemon = await startDaemon({
    dataDir: data.dir,
    listen: { host: '127.0.0.1', port: 0 },
    modListen: { host: '127.0.0.1', port: 0 },
    log: silentLogger,
    ...options.daemon,
    // Every test response is checked against its route's schema: a handler bug is a failure.
    pipeline: { checkResponses: true, ...options.daemon?.pipeline },
  });
  const dataDir = await DataDir.open(data.dir);
  const credentials = await dataDir.read(modCredentialsFile);
  const simulators: Simulator[] = [];
  const startSim: Stack['startSim'] = async (simOptions = {}) => {
    const sim = startSimulator({
      url: `ws://${formatHostPort(daemon.modLink)}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      backoff: { initialMs: 20, maxMs: 200 },
      ...simOptions,
    });
    simulators.push(sim);
    await sim.connected();
    return sim;
  };
  const sim = options.sim === false ? null : await startSim(options.sim);
  const call: Stack['call'] = async (path, init = {}) => {
    const headers = { ...(init.anonymous ? {} : { authorization: `Bearer ${key}` }), ...init.headers };
    // stack.daemon, not the first daemon: a test may restart it.
    const response = await stack.daemon.handle(
      makeRequest({
        url: path,
        method: init.method ?? 'GET',
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        ...(init.remoteAddress !== undefined ? { remoteAddress: init.remoteAddress } : {}),
      }),
    );
    const text = response.body === null ? '' : bodyText(response.body);
    return { ...response, json: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const stack: Stack = {
    data,
    daemon,
    sim,
    key,
    baseUrl: `http://${formatHostPort(daemon.api)}`,
    call,
    startSim,
    close: async () => {
      await Promise.all(simulators.map((s) => s.close()));
      await stack.daemon.close();
      await data.remove();
    },
  };
  return stack;
}

/**
 * Polls `check` until it returns true, failing after `timeoutMs`. Not a timing assertion: the
 * limit is a safety net far above how long anything takes on a loaded 2-core machine, so that a
 * slow run is slow and only a condition that never comes fails (docs/architecture.md, "Where
 * tests live").
 */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
