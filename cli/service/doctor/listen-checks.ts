/**
 * Doctor, network: can serve bind its two addresses, or is a modgate already serving them? A free
 * address is fine (the daemon is not running); a taken one is asked `GET /healthz`, which also
 * tells whether the game's mod is connected (daemon/http/healthz.ts).
 */
import { createServer } from 'node:net';
import { formatHostPort, type HostPort } from '../../../daemon/host-port.ts';
import { HEALTHZ_PATH, parseHealthText, type HealthBody } from '../../../daemon/http/healthz.ts';
import { localGet } from '../local-get.ts';
import { fail, ok, warn, type CheckResult } from './check.ts';

export interface ListenCheckOptions {
  listen: HostPort;
  modListen: HostPort;
  /** Whether serve would speak HTTPS on `listen`. */
  tls: boolean;
  timeoutMs?: number;
}

type Probe = { kind: 'free' } | { kind: 'error'; code: string };

/** What answers on the API address: a modgate with /healthz, an older modgate, or something else. */
type Occupant = { kind: 'modgate'; health: HealthBody } | { kind: 'modgate-old' } | { kind: 'other' };

export async function checkListeners(options: ListenCheckOptions): Promise<CheckResult[]> {
  const { listen, modListen } = options;
  if (listen.port !== 0 && listen.port === modListen.port && sameHost(listen.host, modListen.host)) {
    return [
      fail(
        'listen',
        `the API and the mod link both use ${formatHostPort(listen)}`,
        'give them different ports',
      ),
    ];
  }
  const results: CheckResult[] = [];
  let occupant: Occupant | null = null;
  const api = await probeBind(listen);
  if (api.kind === 'free')
    results.push(ok('api listen', `${formatHostPort(listen)} is free: serve can listen there`));
  else if (api.code !== 'EADDRINUSE') results.push(bindFailure('api listen', listen, api.code));
  else {
    occupant = await identify(listen, options);
    results.push(occupantResult(listen, occupant));
  }
  results.push(await modListenResult(modListen, occupant, options.timeoutMs));
  results.push(modConnection(occupant, modListen));
  if (occupant?.kind === 'modgate')
    results.push(storageResult(occupant.health), workersResult(occupant.health));
  return results;
}

/** A running daemon that cannot write its journal or audit log (docs/operations.md). */
function storageResult(health: HealthBody): CheckResult {
  if (health.storage_faults.length === 0) return ok('storage', 'the journal and the audit log are written');
  return fail(
    'storage',
    `the running daemon cannot write ${health.storage_faults.join('; ')}`,
    'free space in the data dir (df -h) or fix the file; records kept in memory are written once it accepts ' +
      'them, and are lost if the daemon stops first',
  );
}

/** A background loop of the running daemon that failed and is being restarted (/healthz). */
function workersResult(health: HealthBody): CheckResult {
  if (health.worker_faults.length === 0)
    return ok('workers', 'no background loop failed in the last 5 minutes');
  return fail(
    'workers',
    `the running daemon restarted ${health.worker_faults.join('; ')}`,
    'read the daemon log for the error (journalctl -u modgate); it retries with a backoff by itself',
  );
}

function occupantResult(listen: HostPort, occupant: Occupant): CheckResult {
  const where = formatHostPort(listen);
  if (occupant.kind === 'modgate') {
    const { health } = occupant;
    const api = health.api_enabled ? 'API enabled' : 'API disabled';
    return ok('api listen', `${where}: a modgate is serving (up ${formatUptime(health.uptime_sec)}, ${api})`);
  }
  if (occupant.kind === 'modgate-old') {
    return warn(
      'api listen',
      `${where}: a modgate without /healthz is serving`,
      'upgrade it to see the mod status here',
    );
  }
  return fail(
    'api listen',
    `${where} is in use by another program`,
    `find it with: ss -ltnp 'sport = :${listen.port}'; stop it, or give serve another address`,
  );
}

async function modListenResult(
  modListen: HostPort,
  occupant: Occupant | null,
  timeoutMs?: number,
): Promise<CheckResult> {
  const where = formatHostPort(modListen);
  const probe = await probeBind(modListen);
  if (probe.kind === 'free') return ok('mod listen', `${where} is free: serve can listen there`);
  if (probe.code !== 'EADDRINUSE') return bindFailure('mod listen', modListen, probe.code);
  // The mod link is a WebSocket server: a plain GET gets 426 Upgrade Required.
  const answer = await localGet(modListen, '/', false, timeoutMs ?? 2_000).catch(() => null);
  const websocket = answer?.status === 426;
  if (websocket && (occupant?.kind === 'modgate' || occupant?.kind === 'modgate-old'))
    return ok('mod listen', `${where}: the running modgate's mod link`);
  if (websocket)
    return warn(
      'mod listen',
      `${where}: a WebSocket server, not known to be this modgate's`,
      `check with: ss -ltnp 'sport = :${modListen.port}'`,
    );
  return fail(
    'mod listen',
    `${where} is in use by another program`,
    `find it with: ss -ltnp 'sport = :${modListen.port}'; stop it, or give serve another --mod-listen`,
  );
}

function modConnection(occupant: Occupant | null, modListen: HostPort): CheckResult {
  if (occupant === null) {
    return warn(
      'mod',
      'the daemon is not running, so the mod link was not checked',
      'start it: systemctl start modgate (or modgate serve)',
    );
  }
  if (occupant.kind !== 'modgate')
    return warn('mod', 'unknown: no /healthz to ask', 'upgrade the running modgate');
  const { health } = occupant;
  if (health.mod_connected) return ok('mod', `connected (mod version ${health.mod_version ?? 'unknown'})`);
  return fail(
    'mod',
    'no mod connected: every /v1 call that needs the game answers 503 server_unavailable',
    `start the game server; its mod-credentials.json url must reach ws://${formatHostPort(modListen)}, ` +
      'and the journal (journalctl -u modgate) names any refused handshake',
  );
}

function bindFailure(subject: string, address: HostPort, code: string): CheckResult {
  const where = formatHostPort(address);
  if (code === 'EACCES') {
    return fail(
      subject,
      `${where}: ports below 1024 need a privilege the unit does not grant`,
      'use a port from 1024 up behind a reverse proxy, or grant CAP_NET_BIND_SERVICE in a drop-in (modgate docs operations)',
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return fail(
      subject,
      `${address.host} is not an address of this host`,
      'use one from `ip -br addr`, or 127.0.0.1',
    );
  }
  return fail(subject, `cannot listen on ${where}: ${code}`, 'choose another address');
}

/** Binds the address for a moment, exclusively, and lets it go. */
export function probeBind(address: HostPort): Promise<Probe> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'error', code: error.code ?? 'unknown' }),
    );
    server.listen({ host: address.host, port: address.port, exclusive: true }, () => {
      server.close(() => resolve({ kind: 'free' }));
    });
  });
}

async function identify(listen: HostPort, options: ListenCheckOptions): Promise<Occupant> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  // Try the protocol serve would speak first, then the other (a daemon started with other flags).
  for (const tls of [options.tls, !options.tls]) {
    const answer = await localGet(listen, HEALTHZ_PATH, tls, timeoutMs).catch(() => null);
    if (answer === null) continue;
    const health = answer.status === 200 || answer.status === 503 ? parseHealthText(answer.body) : null;
    if (health) return { kind: 'modgate', health };
    // Every modgate response carries API-Version (daemon/version.ts), even a 404.
    return answer.headers['api-version'] !== undefined ? { kind: 'modgate-old' } : { kind: 'other' };
  }
  return { kind: 'other' };
}

function sameHost(a: string, b: string): boolean {
  const wildcard = (host: string) => host === '0.0.0.0' || host === '::';
  return a === b || wildcard(a) || wildcard(b);
}

function formatUptime(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3_600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}
