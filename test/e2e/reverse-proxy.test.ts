/**
 * docs/reverse-proxy.md, as written: the real nginx and the real Caddy (Debian's packages) each
 * run the documented config, changed only in its ports, certificate and temp paths, in front of
 * real `modgate serve` and `modgate sim` processes configured with the documented TOML. Clients
 * connect from other loopback addresses (127.0.0.2, 127.0.0.3, …), so the daemon sees the proxy
 * at 127.0.0.1 and must find the client through `trusted_proxies`.
 *
 * .ci/run installs both and sets MODGATE_REQUIRE_NGINX=1 and MODGATE_REQUIRE_CADDY=1: then a
 * missing proxy fails its block instead of leaving it out.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installed, startProgram, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';
import {
  fence,
  healthz,
  proxiedModgate,
  readProxyDoc,
  swap,
  type ProxiedAnswer,
  type ProxiedModgate,
  type ProxySetup,
} from '../support/reverse-proxy.ts';

interface Proxy {
  name: string;
  command: string | undefined;
  required: boolean;
  /** Writes the proxy's config from the doc's block and starts it in the foreground. */
  launch(command: string, doc: string, setup: ProxySetup): Promise<ModgateProcess>;
}

/** The documented server block in a minimal nginx.conf of its own. */
async function launchNginx(
  command: string,
  doc: string,
  { dir, proxyPort, apiPort, certFile, keyFile }: ProxySetup,
) {
  let server = fence(doc, 'nginx');
  server = swap(server, 'listen 443 ssl;', `listen 127.0.0.1:${proxyPort} ssl;`);
  server = swap(server, '/etc/ssl/modgate/fullchain.pem', certFile);
  server = swap(server, '/etc/ssl/modgate/privkey.pem', keyFile);
  server = swap(server, 'http://127.0.0.1:8787', `http://127.0.0.1:${apiPort}`);
  await writeFile(
    join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'master_process off;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'nginx-error.log')} warn;`,
      'events { worker_connections 64; }',
      'http {',
      `  access_log ${join(dir, 'nginx-access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (temp) => `  ${temp}_temp_path ${join(dir, temp)};`,
      ),
      server,
      '}',
    ].join('\n'),
  );
  return startProgram(command, ['-p', dir, '-c', join(dir, 'nginx.conf')]);
}

/**
 * The documented site block, on a test port with the test's certificate instead of one from
 * Let's Encrypt (what `tls CERT KEY` does), under global options that keep Caddy off the network
 * and inside the temp dir: no admin endpoint, no ACME (a loaded certificate is not managed), no
 * trust-store install for Caddy's local CA, no HTTP→HTTPS redirect listener on port 80, storage,
 * autosave and XDG paths in the temp dir.
 */
async function launchCaddy(
  command: string,
  doc: string,
  { dir, proxyPort, apiPort, certFile, keyFile }: ProxySetup,
) {
  let site = fence(doc, 'caddy');
  site = swap(
    site,
    'api.example.com {',
    `https://localhost:${proxyPort} {\n    bind 127.0.0.1\n    tls ${certFile} ${keyFile}`,
  );
  site = swap(site, 'reverse_proxy 127.0.0.1:8787', `reverse_proxy 127.0.0.1:${apiPort}`);
  const global = [
    '{',
    '    admin off',
    '    auto_https disable_redirects',
    '    skip_install_trust',
    `    storage file_system ${join(dir, 'caddy-storage')}`,
    '}',
  ].join('\n');
  await writeFile(join(dir, 'Caddyfile'), `${global}\n\n${site}`);
  const home = { HOME: dir, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') };
  return startProgram(command, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
    env: home,
  });
}

const PROXIES: Proxy[] = [
  {
    name: 'nginx',
    command: installed(['/usr/sbin/nginx', 'nginx'], ['-v']),
    required: process.env['MODGATE_REQUIRE_NGINX'] === '1',
    launch: launchNginx,
  },
  {
    name: 'Caddy',
    command: installed(['/usr/bin/caddy', 'caddy'], ['version']),
    required: process.env['MODGATE_REQUIRE_CADDY'] === '1',
    launch: launchCaddy,
  },
];

for (const { name, command, required, launch } of PROXIES) {
  describe.runIf(command !== undefined || required)(`modgate behind ${name} (docs/reverse-proxy.md)`, () => {
    let dir: string;
    let modgate: ProxiedModgate | undefined;
    let proxy: ModgateProcess | undefined;

    beforeAll(async () => {
      if (command === undefined)
        throw new Error(`MODGATE_REQUIRE_${name.toUpperCase()}=1 but ${name} is not installed`);
      dir = await mkdtemp(join(tmpdir(), `modgate-${name.toLowerCase()}-`));
      const doc = await readProxyDoc();
      modgate = await proxiedModgate(dir, doc);
      proxy = await launch(command, doc, modgate);
      await modgate.waitFor(proxy);
    }, 180_000);

    afterAll(async () => {
      if (proxy) await stop(proxy);
      await modgate?.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it(`terminates TLS at ${name} with its certificate, while the daemon listens in plain HTTP`, async () => {
      const answer = await modgate!.get('127.0.0.2', modgate!.keys.anywhere);
      expect(answer.status).toBe(200);
      expect(answer.requestId).toMatch(/^req_/);
      expect(answer.fingerprint).toBe(modgate!.fingerprint);
      expect(['TLSv1.2', 'TLSv1.3']).toContain(answer.protocol);
      expect(await healthz(modgate!.apiPort, '127.0.0.7')).toContain('"service":"modgate"');
    });

    it(`applies a key's IP allowlist to the client's address, not ${name}'s`, async () => {
      const { get, keys } = modgate!;
      expect((await get('127.0.0.2', keys.from2)).status).toBe(200);
      expect((await get('127.0.0.2', keys.from3)).status).toBe(403);
      expect((await get('127.0.0.3', keys.from3)).status).toBe(200);
      expect((await get('127.0.0.3', keys.from2)).status).toBe(403);
    });

    it('gives a client no other address through its own X-Forwarded-For', async () => {
      const spoofed = await modgate!.get('127.0.0.2', modgate!.keys.from3, {
        'x-forwarded-for': '127.0.0.3',
      });
      expect(spoofed.status).toBe(403);
    });

    it('counts the per-address rate limit for each client apart', async () => {
      const { get, keys } = modgate!;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) statuses.push((await get('127.0.0.4', keys.anywhere)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      // Another client behind the same proxy is not held back by the first one's count.
      expect((await get('127.0.0.6', keys.anywhere)).status).toBe(200);
    });

    it(`streams events through ${name} as they happen`, async () => {
      const { stream, request, keys } = modgate!;
      const events = await stream('127.0.0.8', keys.events);
      try {
        expect(events.status).toBe(200);
        expect(events.contentType).toMatch(/^text\/event-stream/);
        // The stream's first lines arrive before any event: nothing holds them in a buffer.
        await eventually(() => events.received().includes(': position '));
        const command = { verb: 'Announce', args: [`through ${name}`] };
        // The game's mod may be reconnecting on a loaded machine (503 server_unavailable): that is
        // not the proxy's doing, so try again, each time from a new address (the per-address limit).
        let ran: ProxiedAnswer | undefined;
        let attempt = 0;
        await eventually(async () => {
          attempt += 1;
          const post = { method: 'POST', path: '/v1/commands', body: command };
          ran = await request(`127.3.${Math.floor(attempt / 250)}.${(attempt % 250) + 1}`, keys.events, post);
          return ran.errorCode !== 'server_unavailable';
        }, 30_000);
        expect([ran?.status, ran?.errorCode]).toEqual([200, undefined]);
        await eventually(() => events.received().includes('event: command.executed'));
        expect(events.received()).toContain(`through ${name}`);
      } finally {
        events.close();
      }
    });
  });
}
