/**
 * `GET /healthz`: is this daemon up, and is its game server's mod connected? Outside `/v1`: no
 * key, no API switch, no per-key rate limit, never cached. A pure function of the daemon's state,
 * so the pipeline, `modgate doctor` and the tests share one definition.
 *
 * The status is 200 whenever the daemon answers, with `mod_connected` in the body. A load
 * balancer or reverse proxy in front of daemons routes each game server's traffic to that
 * server's own daemon; marking a daemon down because its game is restarting would only replace
 * the daemon's own answer (503 `server_unavailable` with Retry-After, which bots know to retry)
 * by the proxy's anonymous 502. A monitor that should page when the game side is gone asks for
 * `GET /healthz?mod=required` instead: 503 while no mod is connected.
 */

export interface HealthState {
  modConnected: boolean;
  /** The connected mod's build (the handshake's `mod_version`), or null. */
  modVersion: string | null;
  startedAt: Date;
  apiEnabled: boolean;
  /** Record files the daemon cannot write now (storage-health.ts); empty when all is well. */
  storageFaults?: readonly string[];
  /** Background loops that failed and were restarted lately (worker-health.ts). */
  workerFaults?: readonly string[];
}

export interface HealthOptions {
  /** `?mod=required`: answer 503 while no mod is connected. */
  requireMod?: boolean;
  /** The current time, for `uptime_sec`. */
  now?: Date;
}

export interface HealthBody {
  /** `ok`, or `degraded` when no mod is connected or a record file cannot be written. */
  status: 'ok' | 'degraded';
  /** Always `modgate`: what `modgate doctor` checks to tell a daemon from another program. */
  service: 'modgate';
  mod_connected: boolean;
  mod_version: string | null;
  api_enabled: boolean;
  started_at: string;
  uptime_sec: number;
  /** `file: error` for each record file (journal, audit log, event log) the daemon cannot write now. */
  storage_faults: string[];
  /** Each background loop (a webhook's delivery) that failed and was restarted in the last 5 minutes. */
  worker_faults: string[];
}

export interface HealthResponse {
  status: 200 | 503;
  headers: Record<string, string>;
  body: HealthBody;
}

export const HEALTHZ_PATH = '/healthz';

/** Whether a query string asks for the strict form (`mod=required`). */
export function healthzRequiresMod(searchParams: URLSearchParams): boolean {
  return searchParams.get('mod') === 'required';
}

export function healthz(state: HealthState, options: HealthOptions = {}): HealthResponse {
  const now = options.now ?? new Date();
  const storageFaults = [...(state.storageFaults ?? [])];
  const workerFaults = [...(state.workerFaults ?? [])];
  const healthy = state.modConnected && storageFaults.length === 0 && workerFaults.length === 0;
  const body: HealthBody = {
    status: healthy ? 'ok' : 'degraded',
    service: 'modgate',
    mod_connected: state.modConnected,
    mod_version: state.modConnected ? state.modVersion : null,
    api_enabled: state.apiEnabled,
    started_at: state.startedAt.toISOString(),
    uptime_sec: Math.max(0, Math.floor((now.getTime() - state.startedAt.getTime()) / 1000)),
    storage_faults: storageFaults,
    worker_faults: workerFaults,
  };
  const status = options.requireMod === true && !state.modConnected ? 503 : 200;
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  };
  if (status === 503) headers['retry-after'] = '5';
  return { status, headers, body };
}

/** Reads a `/healthz` body from another process (doctor); null when it is not a modgate's. */
export function parseHealthBody(value: unknown): HealthBody | null {
  if (typeof value !== 'object' || value === null) return null;
  const body = value as Record<string, unknown>;
  if (body['service'] !== 'modgate' || typeof body['mod_connected'] !== 'boolean') return null;
  return {
    status: body['status'] === 'ok' ? 'ok' : 'degraded',
    service: 'modgate',
    mod_connected: body['mod_connected'],
    mod_version: typeof body['mod_version'] === 'string' ? body['mod_version'] : null,
    api_enabled: body['api_enabled'] === true,
    started_at: typeof body['started_at'] === 'string' ? body['started_at'] : '',
    uptime_sec: typeof body['uptime_sec'] === 'number' ? body['uptime_sec'] : 0,
    storage_faults: strings(body['storage_faults']),
    worker_faults: strings(body['worker_faults']),
  };
}

/** The strings of a list field; none when it is absent (an older daemon) or not a list. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** parseHealthBody of a response's text; null when it is not JSON or not a modgate's body. */
export function parseHealthText(text: string): HealthBody | null {
  try {
    return parseHealthBody(JSON.parse(text));
  } catch {
    return null;
  }
}
