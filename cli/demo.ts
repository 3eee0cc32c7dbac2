/**
 * `modgate demo` (`npm start`): the README's first command. It does, in one process, what an
 * operator does by hand: init a data dir, enable the API, turn premium on, create a key, serve,
 * and connect a simulated mod; then it prints the key and curl lines that work as printed. The
 * admin listener runs on loopback too, and the demo prints the panel's URL with a one-time
 * sign-in link; the simulated game makes events (players joining, leaving, ...) at
 * DEMO_EVENTS_PER_MINUTE, so the panel's event tail and webhooks have something to show.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type Daemon } from '../daemon/daemon.ts';
import { formatHostPort, parseHostPort, type HostPort } from '../daemon/host-port.ts';
import { createLogger } from '../daemon/log/log.ts';
import { DataDir } from '../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { startSimulator } from '../mod-sim/simulator.ts';
import { mintLoginCode } from './admin-login-command.ts';
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';
import { runCli } from './program.ts';
import { untilSignal } from './signals.ts';

/** Game events the demo's simulator makes a minute (`modgate sim --events-rate`). */
export const DEMO_EVENTS_PER_MINUTE = 30;

/** Where the demo's admin listener (and panel) goes when the port is free. */
const DEMO_ADMIN_LISTEN: HostPort = { host: '127.0.0.1', port: 8790 };

export interface DemoOptions {
  listen: HostPort;
  /** The admin listener and panel; 127.0.0.1:8790 unless given (any free port if that is taken). */
  adminListen?: HostPort;
  io: CliIo;
  /** Print what the banner tells (URLs, key, data dir) as one JSON object instead. */
  json?: boolean;
  /** Resolves when the demo should stop; by default the first SIGINT or SIGTERM. */
  stop?: Promise<unknown>;
  /** Called once everything is up, with what was printed (tests use it). */
  onReady?: (ready: { baseUrl: string; key: string; dataDir: string; panelLoginUrl: string }) => void;
}

export async function runDemo(options: DemoOptions): Promise<void> {
  const { io } = options;
  const dataDir = await mkdtemp(join(tmpdir(), 'modgate-demo-'));
  try {
    const key = await prepareDataDir(dataDir, io);
    const log = createLogger({ level: 'warn', write: (line) => io.stderr.write(line) });
    const credentials = await (await DataDir.open(dataDir)).read(modCredentialsFile);
    // The mod link listens where init told the mod to dial (127.0.0.1:8788, or
    // MODGATE_MOD_LISTEN), so the daemon has no mismatch to warn about.
    const modListen = parseHostPort(new URL(credentials.url).host);
    const admin = options.adminListen ?? DEMO_ADMIN_LISTEN;
    const daemon = await startOnFreePort(dataDir, { api: options.listen, mod: modListen, admin }, log);
    const simulator = startSimulator({
      url: `ws://${formatHostPort(daemon.modLink)}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      wallClock: true,
      // The curl lines below should work the moment they are printed.
      catalogDelayMs: 0,
      eventsRate: DEMO_EVENTS_PER_MINUTE,
      log,
    });
    await simulator.connected();
    const baseUrl = `http://${formatHostPort(daemon.api)}`;
    const adminUrl = `http://${formatHostPort(daemon.admin.address ?? admin)}`;
    const panelLoginUrl = (await mintLoginCode(daemon.admin.socketPath)).url ?? `${adminUrl}/`;
    const player = simulator.world.players.online()[0] ?? simulator.world.players.list.itemAt(0);
    const info = {
      base_url: baseUrl,
      mod_link: `ws://${formatHostPort(daemon.modLink)}`,
      key,
      data_dir: dataDir,
      players: simulator.world.players.size,
      mod_version: simulator.world.modVersion,
      admin_url: adminUrl,
      panel_login_url: panelLoginUrl,
      events_per_minute: DEMO_EVENTS_PER_MINUTE,
    };
    io.stdout.write(
      options.json
        ? `${JSON.stringify(info)}\n`
        : banner({
            baseUrl,
            key,
            dataDir,
            daemon,
            players: simulator.world.players.size,
            modVersion: simulator.world.modVersion,
            player: player.platform_id,
            adminUrl,
            panelLoginUrl,
          }),
    );
    options.onReady?.({ baseUrl, key, dataDir, panelLoginUrl });
    await (options.stop ?? untilSignal(['SIGINT', 'SIGTERM']));
    await simulator.close();
    await daemon.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The operator's steps, run through the real CLI commands. Returns the new key. */
async function prepareDataDir(dataDir: string, io: CliIo): Promise<string> {
  const steps = [
    ['init', '--data-dir', dataDir, '--name', 'Demo server'],
    ['api', 'enable', '--data-dir', dataDir],
    ['plan', 'set', '--data-dir', dataDir, '--premium', 'on', '--features', 'shop'],
    ['keys', 'create', '--data-dir', dataDir, '--name', 'demo', '--scopes', 'all', '--json'],
  ];
  let output = '';
  for (const argv of steps) {
    output = '';
    const code = await runCli(argv, { ...io, stdout: { write: (text: string) => (output += text) } });
    if (code !== 0) throw new CliError(`demo setup failed at \`modgate ${argv.join(' ')}\``);
  }
  return (JSON.parse(output) as { key: string }).key;
}

/**
 * The requested ports if free, else any free ports: the demo should start on a busy machine too
 * (the daemon then warns that mod-credentials.json names another port; the demo's own simulator
 * dials the port the link got).
 */
async function startOnFreePort(
  dataDir: string,
  listen: { api: HostPort; mod: HostPort; admin: HostPort },
  log: ReturnType<typeof createLogger>,
): Promise<Daemon> {
  const start = (api: HostPort, mod: HostPort, admin: HostPort) =>
    startDaemon({ dataDir, listen: api, modListen: mod, admin: { listen: admin }, log });
  try {
    return await start(listen.api, listen.mod, listen.admin);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const any = (address: HostPort) => ({ host: address.host, port: 0 });
    return start(any(listen.api), any(listen.mod), any(listen.admin));
  }
}

function banner(info: {
  baseUrl: string;
  key: string;
  dataDir: string;
  daemon: Daemon;
  players: number;
  modVersion: string;
  player: string;
  adminUrl: string;
  panelLoginUrl: string;
}): string {
  const auth = `-H "Authorization: Bearer ${info.key}"`;
  // Every URL is single-quoted: zsh treats an unquoted `?` as a glob (`no matches found`).
  const url = (path: string) => `'${info.baseUrl}${path}'`;
  const curl = (path: string) => `  curl -s ${auth} ${url(path)}`;
  const json = `-H "Content-Type: application/json"`;
  return [
    '',
    'modgate demo is running: a daemon and a simulated game server on a throwaway data dir.',
    '',
    `  API        ${info.baseUrl}/v1   (OpenAPI 3.1: ${info.baseUrl}/openapi.json)`,
    `  mod link   ws://${formatHostPort(info.daemon.modLink)}   simulator connected: ${info.players} players, mod ${info.modVersion}`,
    `  data dir   ${info.dataDir}   (deleted when the demo stops)`,
    `  panel      ${info.adminUrl}/   (admin API: ${info.adminUrl}/admin/v1)`,
    '',
    '  Open the panel, signed in (a one-time link: it works once, for 5 minutes;',
    `  \`modgate admin login-url --data-dir ${info.dataDir}\` prints another):`,
    `    ${info.panelLoginUrl}`,
    `  The simulated game makes about ${DEMO_EVENTS_PER_MINUTE} events a minute: see them under Events.`,
    '',
    '  API key, all scopes (shown once; only its hash is stored):',
    `    ${info.key}`,
    '',
    'Try:',
    curl('/v1/server'),
    curl('/v1/players?limit=10'),
    curl('/v1/players/online'),
    curl(`/v1/players/${info.player}`),
    curl(`/v1/players/${info.player}/moderation`),
    `  curl -s ${auth} ${json} -d '{"duration":90,"duration_unit":"minutes","reason":"spam"}' ${url(`/v1/players/${info.player}/mute`)}`,
    `  curl -s ${auth} ${json} -H "Idempotency-Key: demo-coins-1" -d '{"amount":100,"reason":"demo"}' ${url(`/v1/players/${info.player}/coins`)}`,
    curl('/v1/economy/transactions?limit=5'),
    `  curl -s ${auth} ${json} -d '{"verb":"Announce","args":["Hello from modgate"]}' ${url('/v1/commands')}`,
    curl('/v1/commands/catalog'),
    curl('/v1/packs?limit=5'),
    curl('/v1/squads?limit=10'),
    `  curl -s ${url('/openapi.json')}`,
    `  curl -s -i ${url('/v1/server')}                    # no key: 401`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
