/**
 * `modgate demo` (`npm start`): the README's first command. It does, in one process, what an
 * operator does by hand: init a data dir, enable the API, turn premium on, create a key, serve,
 * and connect a simulated mod; then it prints the key and curl lines that work as printed.
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
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';
import { runCli } from './program.ts';
import { untilSignal } from './signals.ts';

export interface DemoOptions {
  listen: HostPort;
  io: CliIo;
  /** Print what the banner tells (URLs, key, data dir) as one JSON object instead. */
  json?: boolean;
  /** Resolves when the demo should stop; by default the first SIGINT or SIGTERM. */
  stop?: Promise<unknown>;
  /** Called once everything is up, with what was printed (tests use it). */
  onReady?: (ready: { baseUrl: string; key: string; dataDir: string }) => void;
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
    const daemon = await startOnFreePort(dataDir, { api: options.listen, mod: modListen }, log);
    const simulator = startSimulator({
      url: `ws://${formatHostPort(daemon.modLink)}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      wallClock: true,
      // The curl lines below should work the moment they are printed.
      catalogDelayMs: 0,
      log,
    });
    await simulator.connected();
    const baseUrl = `http://${formatHostPort(daemon.api)}`;
    const player = simulator.world.players.online()[0] ?? simulator.world.players.list.itemAt(0);
    const info = {
      base_url: baseUrl,
      mod_link: `ws://${formatHostPort(daemon.modLink)}`,
      key,
      data_dir: dataDir,
      players: simulator.world.players.size,
      mod_version: simulator.world.modVersion,
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
          }),
    );
    options.onReady?.({ baseUrl, key, dataDir });
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
  listen: { api: HostPort; mod: HostPort },
  log: ReturnType<typeof createLogger>,
): Promise<Daemon> {
  const start = (api: HostPort, mod: HostPort) => startDaemon({ dataDir, listen: api, modListen: mod, log });
  try {
    return await start(listen.api, listen.mod);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return start({ host: listen.api.host, port: 0 }, { host: listen.mod.host, port: 0 });
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
