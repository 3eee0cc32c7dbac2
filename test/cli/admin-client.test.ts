import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SocketAdminClient, adminClientFor } from '../../cli/admin-client.ts';
import { errorOf } from '../../cli/admin-errors.ts';
import { EXIT_OPERATIONAL, EXIT_PREMIUM_REQUIRED, EXIT_USAGE } from '../../cli/errors.ts';
import { holdDaemonLock, type HeldDaemonLock } from '../../daemon/store/daemon-lock.ts';
import { ADMIN_FILES, DataDir } from '../../daemon/store/data-dir.ts';
import { runOk } from '../../harness/cli.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function dataDir(): Promise<DataDir> {
  const dir = await dataDirPath();
  await runOk(['init', '--data-dir', dir]);
  return DataDir.open(dir);
}

/** An HTTP server on `<dir>/admin.sock` answering every request with `answer`. */
async function fakeDaemon(
  dir: string,
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<Server> {
  const server = createServer(answer);
  server.listen(join(dir, ADMIN_FILES.socket));
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return server;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function lock(dir: string): Promise<HeldDaemonLock> {
  const held = await holdDaemonLock(dir);
  cleanups.push(() => held.release());
  return held;
}

/** A socket file left by a daemon that was killed: it exists, and nothing listens on it. */
async function leftoverSocket(dir: string): Promise<void> {
  const path = join(dir, ADMIN_FILES.socket);
  const listen = `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`;
  const child = spawn(process.execPath, ['-e', listen], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout, 'data');
  child.kill('SIGKILL');
  await once(child, 'exit');
}

describe('adminClientFor', () => {
  it('answers null (write the files) when no daemon runs and there is no socket', async () => {
    const data = await dataDir();
    expect(await adminClientFor(data)).toBeNull();
  });

  it('answers null for a socket a killed daemon left behind, whose lock names a dead process', async () => {
    const data = await dataDir();
    await leftoverSocket(data.path);
    const dead = spawn(process.execPath, ['-e', '']);
    await once(dead, 'exit');
    const owner = { pid: dead.pid, host: hostname(), token: 'gone', boot: null, started: null };
    await writeFile(join(data.path, 'daemon.lock'), JSON.stringify(owner), { mode: 0o600 });
    expect(await adminClientFor(data)).toBeNull();
  });

  it('gives a client of the socket when something answers on it', async () => {
    const data = await dataDir();
    await fakeDaemon(data.path, (_request, response) => json(response, 200, { enabled: true }));
    const admin = await adminClientFor(data);
    expect(admin?.socketPath).toBe(join(data.path, ADMIN_FILES.socket));
    expect((await admin!.send({ method: 'GET', path: '/api' })).body).toEqual({ enabled: true });
  });

  it('waits for a daemon whose lock is held while its socket is not listening yet', async () => {
    const data = await dataDir();
    await lock(data.path);
    const found = adminClientFor(data, { startupWaitMs: 60_000 });
    await leftoverSocket(data.path); // refuses at first, as a starting daemon's path would
    const { unlink } = await import('node:fs/promises');
    await unlink(join(data.path, ADMIN_FILES.socket));
    await fakeDaemon(data.path, (_request, response) => json(response, 200, {}));
    expect(await found).toBeInstanceOf(SocketAdminClient);
  });

  it('refuses, writing nothing, when the lock names a running daemon that never answers', async () => {
    const data = await dataDir();
    await lock(data.path);
    await leftoverSocket(data.path);
    await expect(adminClientFor(data, { startupWaitMs: 200 })).rejects.toMatchObject({
      code: 'daemon_unreachable',
      exitCode: EXIT_OPERATIONAL,
      message: expect.stringContaining('Nothing was changed'),
    });
  });
});

describe('SocketAdminClient.send', () => {
  it('sends JSON with its content type and reads the JSON answer', async () => {
    const data = await dataDir();
    const seen: Array<{ method?: string; url?: string; type?: string; body: string }> = [];
    await fakeDaemon(data.path, (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, type: request.headers['content-type'], body });
        json(response, 200, { enabled: false });
      });
    });
    const admin = new SocketAdminClient(join(data.path, ADMIN_FILES.socket));
    const answer = await admin.send({ method: 'PUT', path: '/api', body: { enabled: false } });
    expect(answer).toEqual({ status: 200, body: { enabled: false } });
    expect(seen).toEqual([
      { method: 'PUT', url: '/admin/v1/api', type: 'application/json', body: '{"enabled":false}' },
    ]);
  });

  it('turns an error envelope about a resource into the CLI error naming it and its list command', async () => {
    const data = await dataDir();
    await fakeDaemon(data.path, (_request, response) =>
      json(response, 404, {
        error: { code: 'not_found', message: 'No key abc.', details: { resource: 'key', id: 'abc' } },
      }),
    );
    const admin = new SocketAdminClient(join(data.path, ADMIN_FILES.socket));
    await expect(admin.send({ method: 'DELETE', path: '/keys/abc' })).rejects.toMatchObject({
      code: 'key_not_found',
      exitCode: EXIT_OPERATIONAL,
      message: `no key with id abc in ${data.path} (see \`modgate keys list\`)`,
    });
  });

  it('refuses an answer larger than its bound', async () => {
    const data = await dataDir();
    await fakeDaemon(data.path, (_request, response) => json(response, 200, { pad: 'x'.repeat(10_000) }));
    const admin = new SocketAdminClient(join(data.path, ADMIN_FILES.socket), { maxResponseBytes: 1_000 });
    await expect(admin.send({ method: 'GET', path: '/keys' })).rejects.toThrow('larger than 1000 bytes');
  });

  it('gives up on a daemon that does not answer within its time', async () => {
    const data = await dataDir();
    await fakeDaemon(data.path, () => undefined);
    const admin = new SocketAdminClient(join(data.path, ADMIN_FILES.socket), { timeoutMs: 100 });
    await expect(admin.send({ method: 'GET', path: '/api' })).rejects.toMatchObject({
      code: 'daemon_timeout',
    });
  });
});

describe('errorOf', () => {
  it.each([
    ['validation_error', 400, EXIT_USAGE, 'usage_error'],
    ['conflict', 409, EXIT_OPERATIONAL, 'conflict'],
    ['internal', 500, EXIT_OPERATIONAL, 'internal'],
  ])('maps %s (%i) to exit code %i', (apiCode, status, exitCode, code) => {
    const error = errorOf({ status, body: { error: { code: apiCode, message: 'Refused.' } } }, '/d');
    expect(error).toMatchObject({ exitCode, code, message: 'Refused.' });
  });

  it('maps premium_required to exit code 3, naming the command that turns premium on', () => {
    const body = { error: { code: 'premium_required', message: 'This needs an active premium plan.' } };
    expect(errorOf({ status: 403, body }, '/d')).toMatchObject({
      exitCode: EXIT_PREMIUM_REQUIRED,
      code: 'premium_required',
      message:
        'premium_required: this needs an active premium plan; enable it with `modgate plan set --data-dir /d --premium on`',
    });
  });

  it.each([
    ['key', 'key_not_found', 'no key with id k1 in /d (see `modgate keys list`)'],
    ['admin_token', 'token_not_found', 'no admin token with id k1 in /d (see `modgate admin tokens list`)'],
    ['webhook', 'webhook_not_found', 'no webhook with id k1 in /d (see `modgate webhooks list`)'],
  ])('names a missing %s with its own code and list command', (resource, code, message) => {
    const body = { error: { code: 'not_found', message: 'No such thing.', details: { resource, id: 'k1' } } };
    expect(errorOf({ status: 404, body }, '/d')).toMatchObject({ exitCode: EXIT_OPERATIONAL, code, message });
  });

  it('says a conflict about a resource as a clause, with the way out for a webhook', () => {
    const key = { code: 'conflict', message: 'Key k1 is revoked.', details: { resource: 'key', id: 'k1' } };
    expect(errorOf({ status: 409, body: { error: key } }, '/d')).toMatchObject({
      code: 'conflict',
      message: 'key k1 is revoked',
    });
    const webhook = {
      ...key,
      message: 'Webhook w1 lost its key.',
      details: { resource: 'webhook', id: 'w1' },
    };
    expect(errorOf({ status: 409, body: { error: webhook } }, '/d').message).toBe(
      'webhook w1 lost its key (modgate webhooks remove w1)',
    );
  });

  it('adds the field messages of a validation error that its message leaves out', () => {
    const details = { errors: [{ in: 'body', path: 'name', message: 'Too long.' }] };
    const error = errorOf(
      { status: 400, body: { error: { code: 'validation_error', message: 'Bad.', details } } },
      '/d',
    );
    expect(error.message).toBe('Bad. (name: Too long.)');
    const said = { error: { code: 'validation_error', message: 'Invalid body.name: Too long.', details } };
    expect(errorOf({ status: 400, body: said }, '/d').message).toBe('Invalid body.name: Too long.');
  });

  it('names the status when the answer carries no envelope', () => {
    expect(errorOf({ status: 502, body: null }, '/d')).toMatchObject({
      code: 'http_502',
      exitCode: EXIT_OPERATIONAL,
    });
  });
});
