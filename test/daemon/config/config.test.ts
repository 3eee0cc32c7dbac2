import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../daemon/config/config.ts';
import { DEFAULT_SESSION_OPTIONS } from '../../../daemon/admin/sessions.ts';
import { daemonOptions, reloadSettings, settingsNeedingRestart } from '../../../daemon/config/settings.ts';
import { suiteDataDir } from '../../support/suite.ts';

let dir: string;
let n = 0;
async function configFile(text: string): Promise<string> {
  const path = join(dir, `c${n++}.toml`);
  await writeFile(path, text);
  return path;
}

async function problems(text: string): Promise<string[]> {
  const error = await loadConfig(await configFile(text)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).problems;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'modgate-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the config file', () => {
  it('reads every section and turns it into daemon options', async () => {
    const config = await loadConfig(
      await configFile(`
[api]
listen = "0.0.0.0:8443"
tls_cert = "/etc/modgate/cert.pem"
tls_key = "/etc/modgate/key.pem"
trusted_proxies = ["10.0.0.0/8", "::1"]
max_connections = 200
max_connections_per_address = 16
ipv6_prefix_length = 56
first_byte_timeout_ms = 3000
headers_timeout_ms = 5000

[rate_limit]
per_key = { limit = 300, window_sec = 60 }
per_address = { limit = 1000, window_sec = 60 }

[mod_link]
listen = "127.0.0.1:9001"
op_deadlines_ms = { "players.list" = 8000 }

[log]
level = "warn"
`),
    );
    const options = daemonOptions(config, {}, {});
    expect(options.listen).toEqual({ host: '0.0.0.0', port: 8443 });
    expect(options.modListen).toEqual({ host: '127.0.0.1', port: 9001 });
    expect(options.tls).toEqual({ certFile: '/etc/modgate/cert.pem', keyFile: '/etc/modgate/key.pem' });
    expect(options.http).toMatchObject({
      maxConnections: 200,
      maxConnectionsPerAddress: 16,
      ipv6PrefixLength: 56,
      firstByteTimeoutMs: 3000,
      headersTimeoutMs: 5000,
      trustedProxies: ['10.0.0.0/8', '::1'],
    });
    expect(reloadSettings(config)).toMatchObject({
      keyRateLimit: { limit: 300, windowSec: 60 },
      edgeRateLimit: { limit: 1000, windowSec: 60 },
      opDeadlines: { 'players.list': 8000 },
    });
  });

  it('reads the event stream caps, each defaulting on its own', async () => {
    const both = await loadConfig(
      await configFile(
        '[events]\nstream_max_per_key = 2\nstream_max_per_address = 5\nstream_max_buffered_bytes = 65536\n',
      ),
    );
    expect(daemonOptions(both, {}, {}).pipeline?.streamLimits).toEqual({ maxPerKey: 2, maxPerAddress: 5 });
    expect(daemonOptions(both, {}, {}).stream).toEqual({ maxBufferedBytes: 65_536 });
    const one = await loadConfig(await configFile('[events]\nstream_max_per_key = 1\n'));
    expect(daemonOptions(one, {}, {}).pipeline?.streamLimits).toEqual({ maxPerKey: 1, maxPerAddress: 16 });
    await expect(loadConfig(await configFile('[events]\nstream_max_per_key = 0\n'))).rejects.toThrow(
      ConfigError,
    );
  });

  it("reads the panel's session limits, each defaulting on its own", async () => {
    const all = await loadConfig(
      await configFile(
        '[admin]\nsession_hours = 2\nmax_sessions = 10\nlogin_code_minutes = 1\nmax_login_codes = 3\n',
      ),
    );
    expect(daemonOptions(all, {}, {}).admin?.sessions).toEqual({
      ttlMs: 7_200_000,
      maxSessions: 10,
      codeTtlMs: 60_000,
      maxCodes: 3,
    });
    const none = await loadConfig(await configFile('[admin]\n'));
    expect(daemonOptions(none, {}, {}).admin?.sessions).toBeUndefined();
    expect(DEFAULT_SESSION_OPTIONS).toEqual({
      ttlMs: 43_200_000,
      maxSessions: 1_000,
      codeTtlMs: 300_000,
      maxCodes: 100,
    });
    await expect(loadConfig(await configFile('[admin]\nsession_hours = 0\n'))).rejects.toThrow(ConfigError);
    await expect(loadConfig(await configFile('[admin]\nlogin_code_minutes = 61\n'))).rejects.toThrow(
      ConfigError,
    );
  });

  it('reads [admin]: no TCP listener by default, its own certificate or else the API’s, the flag over the file', async () => {
    const none = daemonOptions(await loadConfig(await configFile('')), {}, {});
    expect(none.admin).toEqual({ hostnames: [] });
    const own = await loadConfig(
      await configFile(
        '[api]\ntls_cert = "a.pem"\ntls_key = "a.key"\n[admin]\nlisten = "0.0.0.0:8790"\ntls_cert = "b.pem"\ntls_key = "b.key"\nhostnames = ["admin.example.net"]\nmax_token_failures = 3\n',
      ),
    );
    expect(daemonOptions(own, {}, {}).admin).toEqual({
      listen: { host: '0.0.0.0', port: 8790 },
      tls: { certFile: 'b.pem', keyFile: 'b.key' },
      hostnames: ['admin.example.net'],
      backoff: { maxFailures: 3 },
    });
    const shared = await loadConfig(await configFile('[api]\ntls_cert = "a.pem"\ntls_key = "a.key"\n'));
    const flagged = daemonOptions(shared, { adminListen: { host: '127.0.0.1', port: 9 } }, {}).admin;
    expect(flagged).toMatchObject({ listen: { host: '127.0.0.1', port: 9 }, tls: { certFile: 'a.pem' } });
    expect(await problems('[admin]\ntls_cert = "b.pem"\n')).toEqual([
      'admin.tls_cert: tls_cert and tls_key go together',
    ]);
    expect((await problems('[admin]\nhostnames = ["a b"]\n'))[0]).toMatch(/^admin\.hostnames\.0:/);
  });

  it('reads the admin event stream caps and the audit page budget, each defaulting on its own', async () => {
    const set = await loadConfig(
      await configFile(
        '[admin]\nevents_max_per_admin = 2\nevents_max_total = 5\naudit_page_budget_ms = 250\n',
      ),
    );
    expect(daemonOptions(set, {}, {}).admin).toMatchObject({
      eventStreams: { maxPerActor: 2, maxTotal: 5 },
      auditRead: { budgetMs: 250 },
    });
    const none = daemonOptions(await loadConfig(await configFile('')), {}, {}).admin;
    expect(none).not.toHaveProperty('eventStreams');
    expect(none).not.toHaveProperty('auditRead');
    for (const bad of ['events_max_per_admin = 0', 'audit_page_budget_ms = 60000']) {
      await expect(loadConfig(await configFile(`[admin]\n${bad}\n`))).rejects.toThrow(ConfigError);
    }
  });

  it('lets a flag win over the environment, and the environment over the file', async () => {
    const config = await loadConfig(await configFile('[api]\nlisten = "127.0.0.1:1111"\n'));
    expect(daemonOptions(config, {}, {}).listen.port).toBe(1111);
    expect(daemonOptions(config, {}, { MODGATE_LISTEN: '127.0.0.1:2222' }).listen.port).toBe(2222);
    const flag = { listen: { host: '127.0.0.1', port: 3333 } };
    expect(daemonOptions(config, flag, { MODGATE_LISTEN: '127.0.0.1:2222' }).listen.port).toBe(3333);
  });

  it.each([
    ['an unknown setting', '[api]\nlisen = "1.2.3.4:1"\n', 'api: unknown setting lisen'],
    ['an unknown section', '[apis]\n', '(top level): unknown setting apis'],
    [
      'a listen address without a port',
      '[api]\nlisten = "127.0.0.1"\n',
      'api.listen: "127.0.0.1" is not HOST:PORT',
    ],
    [
      'a certificate without its key',
      '[api]\ntls_cert = "c.pem"\n',
      'api.tls_cert: tls_cert and tls_key go together',
    ],
    [
      'a proxy that is not an address',
      '[api]\ntrusted_proxies = ["proxy.local"]\n',
      'api.trusted_proxies.0: an IP address or CIDR range',
    ],
    [
      'a deadline for an op that does not exist',
      '[mod_link]\nop_deadlines_ms = { "players.nope" = 1 }\n',
      'not an op of the catalogue',
    ],
    [
      'a zero rate limit',
      '[rate_limit]\nper_key = { limit = 0, window_sec = 60 }\n',
      'rate_limit.per_key.limit',
    ],
    [
      'an IPv6 prefix that would count a whole provider as one client',
      '[api]\nipv6_prefix_length = 16\n',
      'api.ipv6_prefix_length',
    ],
    ['a log level that does not exist', '[log]\nlevel = "loud"\n', 'log.level'],
    ['text that is not TOML', '[api\n', 'not valid TOML'],
  ])('refuses %s, naming where', async (_what, text, expected) => {
    expect((await problems(text)).join('\n')).toContain(expected);
  });

  it('lists every problem at once', async () => {
    expect(await problems('[api]\nlisten = "x"\nmax_connections = 0\n')).toHaveLength(2);
    expect(
      await problems('[api]\nmax_connections_per_address = 0\nfirst_byte_timeout_ms = 0\n'),
    ).toHaveLength(2);
  });

  it('takes [webhooks] allow_networks as CIDRs, canonical, for the start and for a SIGHUP', async () => {
    const config = await loadConfig(
      await configFile('[webhooks]\nallow_networks = ["10.1.2.3/8", "fd00::/8", "192.168.5.7"]\n'),
    );
    const networks = ['10.0.0.0/8', 'fd00::/8', '192.168.5.7/32'];
    expect(daemonOptions(config, {}, {}).webhookNetwork).toEqual({ allowNetworks: networks });
    expect(reloadSettings(config).webhookAllowNetworks).toEqual(networks);
    expect(await problems('[webhooks]\nallow_networks = ["intranet", "10.0.0.0/33"]\n')).toEqual([
      'webhooks.allow_networks.0: an IP address or CIDR range',
      'webhooks.allow_networks.1: an IP address or CIDR range',
    ]);
  });
});

describe('modgate config check', () => {
  const data = suiteDataDir();

  it('prints the settings a good file gives and exits 0', async () => {
    const path = await configFile('[api]\nlisten = "127.0.0.1:9999"\n');
    const result = await data.cli('config', 'check', '--config', path);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${path}: ok`);
    expect(result.stdout).toContain('127.0.0.1:9999 (plain HTTP, loopback only)');
  });

  it('prints every problem on one error and exits 2', async () => {
    const path = await configFile('[api]\nlisten = "x"\n');
    const result = await data.cli('config', 'check', '--config', path);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('api.listen');
  });
});

describe('settings a reload does not apply', () => {
  it('names the changed ones that take effect at the next restart, and none a reload applies', async () => {
    const started = await loadConfig(
      await configFile('[admin]\nmax_sessions = 3\n[log]\nlevel = "info"\n[api]\ntrusted_proxies = []\n'),
    );
    const now = await loadConfig(
      await configFile(
        '[admin]\nmax_sessions = 6\nlisten = "127.0.0.1:9"\n[log]\nlevel = "debug"\n[api]\n' +
          'trusted_proxies = ["10.0.0.1"]\n[rate_limit]\nper_key = { limit = 5, window_sec = 60 }\n',
      ),
    );
    expect(settingsNeedingRestart(started, now)).toEqual(['admin.listen', 'admin.max_sessions']);
    expect(settingsNeedingRestart(started, started)).toEqual([]);
  });
});
