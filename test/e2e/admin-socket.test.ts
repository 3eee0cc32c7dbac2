/**
 * admin.sock over a real `modgate serve`: created 0600 in the data dir, answering the admin API
 * with the local actor, removed at stop (SIGTERM), a stale one from a crash replaced, and one a
 * running daemon answers on refused, so a second serve on the same data dir does not start.
 */
import { chmod, lstat, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { makeDataDir, premiumDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { launchServe, startServe, stop } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

describe('admin.sock', () => {
  let data: TestDataDir;
  const socket = () => join(data.dir, 'admin.sock');

  beforeEach(async () => {
    data = await makeDataDir();
  });

  afterEach(async () => {
    await data.remove();
  });

  it('is a socket of mode 0600 that answers GET /admin/v1/status while serve runs', async () => {
    const { serve } = await startServe(data.dir);
    try {
      const entry = await lstat(socket());
      expect(entry.isSocket()).toBe(true);
      expect(entry.mode & 0o777).toBe(0o600);
      const answer = await adminRequest({ dataDir: data.dir, path: '/admin/v1/status' });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ api: { enabled: true }, link: { connected: false } });
      expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
      const openapi = await adminRequest({ dataDir: data.dir, path: '/admin/v1/openapi.json' });
      expect(openapi.json).toMatchObject({ openapi: '3.1.0', paths: { '/admin/v1/status': { get: {} } } });
    } finally {
      expect(await stop(serve)).toBe(0);
    }
  }, 60_000);

  it('is removed when serve stops on SIGTERM', async () => {
    const { serve } = await startServe(data.dir);
    expect((await lstat(socket())).isSocket()).toBe(true);
    expect(await stop(serve, 'SIGTERM')).toBe(0);
    await expect(stat(socket())).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it('replaces a stale socket that nothing answers on', async () => {
    const { serve } = await startServe(data.dir);
    serve.kill('SIGKILL'); // a crash: the socket stays behind
    await serve.exited();
    expect((await lstat(socket())).isSocket()).toBe(true);
    const again = await startServe(data.dir);
    try {
      const answer = await adminRequest({ dataDir: data.dir, path: '/admin/v1/status' });
      expect(answer.status).toBe(200);
    } finally {
      await stop(again.serve);
    }
  }, 60_000);

  it('refuses to start, exit 2, when the data dir path is too long for a socket in it', async () => {
    const long = join(data.dir, 'd'.repeat(100));
    await premiumDataDir(long);
    const { serve } = await launchServe(long);
    expect(await serve.exited()).toBe(2);
    expect(serve.output()).toContain('longer than the 107 bytes a Unix socket path may have');
  }, 60_000);

  it('refuses to start when a running process answers on the socket', async () => {
    const holder = createServer(() => undefined);
    await new Promise<void>((resolve) => holder.listen(socket(), resolve));
    await chmod(socket(), 0o600); // as a daemon's own: the data dir check passes it
    try {
      const { serve } = await launchServe(data.dir);
      const code = await serve.exited();
      expect(code).toBe(1);
      expect(serve.output()).toContain('another modgate serve is running on this data dir');
    } finally {
      holder.close();
    }
  }, 60_000);

  it('refuses a second serve on the same data dir while the first runs', async () => {
    const first = await startServe(data.dir);
    try {
      const second = await launchServe(data.dir);
      expect(await second.serve.exited()).toBe(1);
      expect(second.serve.output()).toContain('another modgate serve is running on this data dir');
      await eventually(
        async () => (await adminRequest({ dataDir: data.dir, path: '/admin/v1/status' })).status === 200,
      );
    } finally {
      await stop(first.serve);
    }
  }, 60_000);
});
