/**
 * The CLI as a client of a running `modgate serve` (docs/data-dir.md, "How a change reaches the
 * daemon"): with serve up, each routed command goes through admin.sock (the change acts on the
 * very next /v1 request, with no file watcher, and the audit log names the local user); with
 * serve gone (a crash left its socket and lock behind) it writes the data dir; and when serve
 * runs but its socket does not let this user in, it says so and writes nothing. The daemon reads
 * its files at start and when told to (`modgate reload`, SIGHUP), never by polling them: a hand
 * edit counts from the next reload, a broken one is refused whole while the daemon keeps serving
 * what it had, and a second serve on the same data dir is refused by the daemon lock.
 */
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../harness/cli.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { launchServe, start, startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

/** Runs modgate as root without the capabilities that let root past file modes. */
const WITHOUT_DAC_OVERRIDE = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'];

async function runWithoutDacOverride(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = start(argv, { wrap: WITHOUT_DAC_OVERRIDE });
  const code = await child.exited();
  return { code, stderr: child.stderrText() };
}

interface AuditLine {
  actor?: { kind: string; uid?: number };
  method: string;
  route: string;
  status: number;
}

async function readAuditLines(dir: string): Promise<AuditLine[]> {
  const text = await readFile(join(dir, 'audit.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditLine);
}

/**
 * The audit log's lines once `count` lines match `route` ("METHOD /route" or "METHOD /route
 * STATUS"), or after 10 s, for the assertions to say what is missing: the daemon appends a line
 * once it has answered, so the line can land just after the CLI has its answer.
 */
async function auditLines(dir: string, route: string, count = 1): Promise<AuditLine[]> {
  let lines: AuditLine[] = [];
  const matches = (line: AuditLine) =>
    `${line.method} ${line.route}` === route || `${line.method} ${line.route} ${line.status}` === route;
  await eventually(async () => {
    lines = await readAuditLines(dir);
    return lines.filter(matches).length >= count;
  }).catch(() => undefined);
  return lines;
}

let data: TestDataDir;
let serve: ModgateProcess;
let apiPort: number;
let key: string;
const status = async () =>
  (await fetch(`http://127.0.0.1:${apiPort}/v1/server`, { headers: { authorization: `Bearer ${key}` } }))
    .status;
const statePath = () => join(data.dir, 'state.json');
const state = async () => JSON.parse(await readFile(statePath(), 'utf8')) as unknown;

beforeAll(async () => {
  data = await makeDataDir();
  key = (await data.createKey('--name', 'ops', '--scopes', 'server:read')).key;
  ({ serve, apiPort } = await startServe(data.dir));
}, 60_000);

afterAll(async () => {
  await stop(serve);
  await data.remove();
});

describe('the CLI while serve runs', () => {
  it('switches the API off through admin.sock: the next request sees it, and the audit log names the local user', async () => {
    const result = await run(['api', 'disable', '--data-dir', data.dir, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ api_enabled: false, changed: true, premium_active: true });
    expect(await status()).toBe(404);
    expect(await auditLines(data.dir, 'PUT /admin/v1/api')).toContainEqual(
      expect.objectContaining({
        actor: { kind: 'local', uid: process.getuid!() },
        method: 'PUT',
        route: '/admin/v1/api',
      }),
    );
    expect(await state()).toMatchObject({ api_enabled: false });

    expect((await run(['api', 'enable', '--data-dir', data.dir])).stdout).toBe('API enabled.\n');
    expect(await status()).not.toBe(404);
  });

  it('reads the daemon, not the file: api status reports what the daemon serves', async () => {
    const path = join(data.dir, 'state.json');
    const before = await readFile(path, 'utf8');
    await writeFile(path, before.replace('"api_enabled": true', '"api_enabled": false')); // no reload
    try {
      expect((await run(['api', 'status', '--data-dir', data.dir])).stdout).toMatch(/^API: enabled\n/);
    } finally {
      await writeFile(path, before);
    }
  });

  it('sets the plan through admin.sock with the same output as offline, effective at once', async () => {
    // The data dir's set-up wrote the plan before serve started: audited too (in-process admin).
    const isPlanWrite = (line: AuditLine) => `${line.method} ${line.route}` === 'PUT /admin/v1/plan';
    const before = (await readAuditLines(data.dir)).filter(isPlanWrite).length;
    const off = await run(['plan', 'set', '--data-dir', data.dir, '--premium', 'off']);
    expect(off.stdout).toBe('Plan set: premium off, features: none (inactive).\n');
    expect(await status()).toBe(403);
    const again = await run(['plan', 'set', '--data-dir', data.dir, '--premium', 'off', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({
      premium: false,
      until: null,
      features: [],
      active: false,
      changed: false,
    });

    const on = await run(['plan', 'set', '--data-dir', data.dir, '--premium', 'on', '--features', 'shop']);
    expect(on.stdout).toBe('Plan set: premium on, features: shop (active).\n');
    expect(await status()).not.toBe(403);
    expect((await run(['plan', 'status', '--data-dir', data.dir])).stdout).toBe(
      'Plan: premium on, features: shop (active)\n',
    );
    const lines = await auditLines(data.dir, 'PUT /admin/v1/plan', before + 3);
    expect(lines.filter(isPlanWrite)).toHaveLength(before + 3);
  });

  it('creates, lists and revokes admin tokens through admin.sock, and maps its not_found to token_not_found', async () => {
    const created = JSON.parse(
      (await run(['admin', 'tokens', 'create', '--data-dir', data.dir, '--name', 'panel', '--json'])).stdout,
    ) as { id: string; token: string };
    expect(created.token).toMatch(/^mgadm_/);
    const listed = JSON.parse(
      (await run(['admin', 'tokens', 'list', '--data-dir', data.dir, '--json'])).stdout,
    );
    expect(listed).toEqual([expect.objectContaining({ id: created.id, name: 'panel', status: 'active' })]);
    const revoked = await run(['admin', 'tokens', 'revoke', created.id, '--data-dir', data.dir]);
    expect(revoked.stdout).toBe(`Admin token ${created.id} (panel) revoked.\n`);
    const unknown = await run([
      'admin',
      'tokens',
      'revoke',
      'aaaaaaaaaaaa',
      '--data-dir',
      data.dir,
      '--json',
    ]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: {
        code: 'token_not_found',
        message: `no admin token with id aaaaaaaaaaaa in ${data.dir} (see \`modgate admin tokens list\`)`,
      },
    });
    const lines = await auditLines(data.dir, 'DELETE /admin/v1/tokens/{id} 404');
    const routes = lines.map((line) => `${line.method} ${line.route} ${line.status}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /admin/v1/tokens 201',
        'DELETE /admin/v1/tokens/{id} 204',
        'DELETE /admin/v1/tokens/{id} 404',
      ]),
    );
  });

  it('creates, lists, rolls and revokes keys through admin.sock, each acting on the next /v1 request', async () => {
    const as = async (text: string) =>
      (await fetch(`http://127.0.0.1:${apiPort}/v1/server`, { headers: { authorization: `Bearer ${text}` } }))
        .status;
    const created = await run([
      'keys',
      'create',
      '--data-dir',
      data.dir,
      '--name',
      'bot',
      '--scopes',
      'server:read',
      '--json',
    ]);
    const fresh = JSON.parse(created.stdout) as { id: string; key: string };
    expect(await as(fresh.key)).not.toBe(401);
    const listed = JSON.parse((await run(['keys', 'list', '--data-dir', data.dir, '--json'])).stdout) as {
      keys: Array<{ id: string; last_used_at: string | null }>;
    };
    // The daemon's own record of the request just made: keys.json and key-usage.json do not have it yet.
    expect(listed.keys.find((entry) => entry.id === fresh.id)?.last_used_at).not.toBeNull();

    const rolled = await run([
      'keys',
      'roll',
      fresh.id,
      '--data-dir',
      data.dir,
      '--expire-old-in',
      '1h',
      '--json',
    ]);
    const next = JSON.parse(rolled.stdout) as { id: string; key: string; rolled_from: string };
    expect(next.rolled_from).toBe(fresh.id);
    expect(await as(next.key)).not.toBe(401);

    const revoked = await run(['keys', 'revoke', fresh.id, '--data-dir', data.dir]);
    expect(revoked.stdout).toBe(`Revoked key ${fresh.id} (bot).\n`);
    expect(await as(fresh.key)).toBe(401);
    const again = await run(['keys', 'revoke', fresh.id, '--data-dir', data.dir, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: fresh.id, changed: false });

    const unknown = await run(['keys', 'revoke', 'aaaaaaaaaaaa', '--data-dir', data.dir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      `error: no key with id aaaaaaaaaaaa in ${data.dir} (see \`modgate keys list\`)\n`,
    );
    const lines = await auditLines(data.dir, 'DELETE /admin/v1/keys/{id} 204');
    const routes = lines.map((line) => `${line.method} ${line.route} ${line.status}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /admin/v1/keys 201',
        'POST /admin/v1/keys/{id}/roll 201',
        'DELETE /admin/v1/keys/{id} 204',
      ]),
    );
  });

  it('refuses a key through the daemon without premium with exit code 3, as offline', async () => {
    await run(['plan', 'set', '--data-dir', data.dir, '--premium', 'off']);
    try {
      const refused = await run([
        'keys',
        'create',
        '--data-dir',
        data.dir,
        '--name',
        'x',
        '--scopes',
        'all',
        '--json',
      ]);
      expect(refused.code).toBe(3);
      expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'premium_required' } });
    } finally {
      await run(['plan', 'set', '--data-dir', data.dir, '--premium', 'on', '--features', 'shop']);
    }
  });

  it('says so and writes nothing when the socket does not let this user in', async () => {
    const socket = join(data.dir, 'admin.sock');
    const before = await readFile(join(data.dir, 'state.json'), 'utf8');
    await chmod(socket, 0o000);
    try {
      const result = await runWithoutDacOverride(['api', 'disable', '--data-dir', data.dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`a modgate daemon (process ${serve.pid}) serves ${data.dir}`);
      expect(result.stderr).toContain(
        'does not let this user in (permission denied), so nothing was changed',
      );
      expect(result.stderr).toContain(`sudo -u root modgate api disable --data-dir ${data.dir}`);
    } finally {
      await chmod(socket, 0o600);
    }
    expect(await readFile(join(data.dir, 'state.json'), 'utf8')).toBe(before);
    expect(await status()).not.toBe(404); // still enabled (no mod runs here: 503)
  }, 60_000);
});

describe('modgate reload', () => {
  const editState = async (change: (state: Record<string, unknown>) => Record<string, unknown>) =>
    writeFile(statePath(), JSON.stringify(change(JSON.parse(await readFile(statePath(), 'utf8')))));

  it('leaves a hand edit unseen until reload: nothing polls the files', async () => {
    expect(await status()).not.toBe(404);
    await editState((state) => ({ ...state, api_enabled: false }));
    await sleep(1_500); // six polls of the watcher this replaces
    expect(await status()).not.toBe(404);
  });

  it('applies the hand edit before it returns, and says so', async () => {
    const result = await run(['reload', '--data-dir', data.dir]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`Reloaded: the daemon serving ${data.dir} read its data files`);
    expect(await status()).toBe(404); // no waiting: the answer came after the reload
    await eventually(() => serve.output().includes('"msg":"reloaded"')); // the log line, through a pipe
  });

  it('exits 1 with the broken file named, and the daemon keeps serving what it had', async () => {
    await editState((state) => ({ ...state, api_enabled: true }));
    expect((await run(['reload', '--data-dir', data.dir])).code).toBe(0);
    expect(await status()).not.toBe(404);

    const good = await state();
    await writeFile(statePath(), '{ "api_enabled": false, ');
    const refused = await run(['reload', '--data-dir', data.dir, '--json']);
    expect(refused.code).toBe(1);
    const error = (JSON.parse(refused.stderr) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('reload_refused');
    expect(error.message).toContain(`${statePath()} is not valid JSON`);
    expect(error.message).toContain('serves what it had');
    await eventually(() => serve.output().includes('reload refused'));
    expect(serve.exitCode).toBeNull();
    expect(await status()).not.toBe(404);
    expect((await fetch(`http://127.0.0.1:${apiPort}/healthz`)).status).toBe(200);
    await writeFile(statePath(), JSON.stringify(good));
  });

  it('reloads on SIGHUP too (what systemctl reload sends), logging the outcome', async () => {
    await editState((state) => ({ ...state, api_enabled: false }));
    const logged = serve.output().split('"msg":"reloaded"').length;
    serve.kill('SIGHUP');
    await eventually(() => serve.output().split('"msg":"reloaded"').length > logged);
    expect(await status()).toBe(404);
    await editState((state) => ({ ...state, api_enabled: true }));
    expect((await run(['reload', '--data-dir', data.dir])).code).toBe(0);
  });

  it('refuses a second serve on the same data dir, naming the process that serves it', async () => {
    const second = await launchServe(data.dir);
    expect(await second.serve.exited()).toBe(1);
    expect(second.serve.output()).toContain(
      `another modgate serve is running on this data dir, ${data.dir} (process ${serve.pid} on `,
    );
  });
});

describe('a reload that a loose or missing data file refuses', () => {
  it.each([
    ['loose', (path: string) => chmod(path, 0o644)],
    ['missing', (path: string) => rm(path)],
  ])(
    'reaches the daemon with a %s keys.json: exit 1 naming it, and the audit log reopened',
    async (_, spoil) => {
      const data = await makeDataDir();
      const { serve } = await startServe(data.dir);
      try {
        const keys = join(data.dir, 'keys.json');
        const good = await readFile(keys, 'utf8');
        await spoil(keys);
        await rename(join(data.dir, 'audit.jsonl'), join(data.dir, 'audit.jsonl.1'));
        const refused = await run(['reload', '--data-dir', data.dir, '--json']);
        expect(refused.code).toBe(1);
        expect(JSON.parse(refused.stderr)).toMatchObject({
          error: { code: 'reload_refused', message: expect.stringContaining(keys) },
        });
        expect(await auditLines(data.dir, 'POST /admin/v1/reload')).toContainEqual(
          expect.objectContaining({ route: '/admin/v1/reload', status: 409 }),
        );
        await writeFile(keys, good, { mode: 0o600 });
      } finally {
        await stop(serve);
        await data.remove();
      }
    },
  );
});

describe('a reload of a config file with settings that need a restart', () => {
  it('applies what it can and names the rest', async () => {
    const data = await makeDataDir();
    const config = join(data.dir, '..', `${basename(data.dir)}.toml`);
    await writeFile(config, '[admin]\nmax_sessions = 3\n[log]\nlevel = "info"\n');
    const { serve } = await startServe(data.dir, { extra: ['--config', config] });
    try {
      await writeFile(config, '[admin]\nmax_sessions = 6\n[log]\nlevel = "warn"\n');
      const reloaded = await run(['reload', '--data-dir', data.dir]);
      expect(reloaded).toMatchObject({ code: 0, stderr: '' });
      expect(reloaded.stdout).toContain(
        'Changed in the config file, in force only after a restart: admin.max_sessions.',
      );
      const json = await run(['reload', '--data-dir', data.dir, '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({
        reloaded: true,
        restart_needed: ['admin.max_sessions'],
      });
      await eventually(
        () => serve.output().includes('changed settings take effect at the next restart'),
        10_000,
      );
    } finally {
      await stop(serve);
      await rm(config, { force: true });
      await data.remove();
    }
  });
});

describe('a reload a broken config file refuses', () => {
  it('exits 1 naming the file, and still lets go of the audit log logrotate moved', async () => {
    const data = await makeDataDir();
    const config = join(data.dir, '..', `${basename(data.dir)}.toml`);
    await writeFile(config, '[log]\nlevel = "info"\n');
    const { serve, apiPort: port } = await startServe(data.dir, { extra: ['--config', config] });
    try {
      await writeFile(config, '[log\nlevel = ');
      await rename(join(data.dir, 'audit.jsonl'), join(data.dir, 'audit.jsonl.1'));
      const refused = await run(['reload', '--data-dir', data.dir, '--json']);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr)).toMatchObject({
        error: { code: 'reload_refused', message: expect.stringContaining(config) },
      });
      expect((await run(['api', 'disable', '--data-dir', data.dir])).code).toBe(0);
      expect(await auditLines(data.dir, 'PUT /admin/v1/api')).toContainEqual(
        expect.objectContaining({ route: '/admin/v1/api' }),
      );
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      await stop(serve);
      await rm(config, { force: true });
      await data.remove();
    }
  });
});

describe('commands that ask the running daemon, without one', () => {
  it.each([[['reload']], [['admin', 'login-url']]])(
    '%j exits 1 saying no daemon serves the data dir',
    async (command) => {
      const data = await makeDataDir();
      try {
        const result = await run([...command, '--data-dir', data.dir, '--json']);
        expect(result.code).toBe(1);
        expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'daemon_not_running' } });
      } finally {
        await data.remove();
      }
    },
  );
});

describe('the CLI after serve crashed', () => {
  it('writes the data dir when the socket and lock left behind belong to no running daemon', async () => {
    const data = await makeDataDir();
    try {
      const { serve } = await startServe(data.dir);
      serve.kill('SIGKILL');
      await serve.exited();
      await chmod(join(data.dir, 'admin.sock'), 0o000); // not even usable: still not a daemon
      const result = await runWithoutDacOverride(['api', 'disable', '--data-dir', data.dir]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(await readFile(join(data.dir, 'state.json'), 'utf8'))).toMatchObject({
        api_enabled: false,
      });
    } finally {
      await data.remove();
    }
  }, 60_000);
});
