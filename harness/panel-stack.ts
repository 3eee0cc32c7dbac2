/**
 * What the panel's browser tests and screenshots run against: a real `modgate serve` with the
 * admin TCP listener on loopback and a real `modgate sim` making game events, on a data dir
 * with premium, the API on, and an admin token.
 */
import { freePort } from './ports.ts';
import { runOk } from './cli.ts';
import { makeDataDir, type TestDataDir } from './data-dir.ts';
import { startServeAndSim, stop, type ServeAndSim } from './processes.ts';

export interface PanelStack extends ServeAndSim {
  data: TestDataDir;
  /** `http://127.0.0.1:PORT`: the panel and /admin/v1. */
  adminUrl: string;
  /** `http://127.0.0.1:PORT`: /v1. */
  apiUrl: string;
  /** An admin token (`mgadm_…`) made with `modgate admin tokens create`. */
  token: string;
  tokenId: string;
  close(): Promise<void>;
}

export interface PanelStackOptions {
  /** Events the simulator makes a minute (`modgate sim --events-rate`); 600 unless told. */
  eventsRate?: number;
  /**
   * More `serve` flags, or a promise of them: the data dir and its token are made while it
   * settles (a config naming a database that is still starting).
   */
  serveExtra?: readonly string[] | Promise<readonly string[]>;
  /** More `sim` flags (`--fault …`, mod-sim/faults.ts). */
  simExtra?: readonly string[];
}

export async function startPanelStack(options: PanelStackOptions = {}): Promise<PanelStack> {
  const data = await makeDataDir();
  const created = JSON.parse(
    await runOk(['admin', 'tokens', 'create', '--data-dir', data.dir, '--name', 'panel-test', '--json']),
  ) as { id: string; token: string };
  const serveExtra = (await options.serveExtra) ?? [];
  const adminPort = await freePort();
  const stack = await startServeAndSim(data.dir, {
    extra: ['--admin-listen', `127.0.0.1:${adminPort}`, ...serveExtra],
    simExtra: ['--events-rate', String(options.eventsRate ?? 600), ...(options.simExtra ?? [])],
  });
  return {
    ...stack,
    data,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    apiUrl: `http://127.0.0.1:${stack.apiPort}`,
    token: created.token,
    tokenId: created.id,
    close: async () => {
      await Promise.all([stop(stack.sim), stop(stack.serve)]);
      await data.remove();
    },
  };
}
