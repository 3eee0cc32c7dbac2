/**
 * sd_notify from a real `modgate serve` process, without systemd: a stand-in NOTIFY_SOCKET (a
 * Unix datagram socket, which Node cannot open, so a few lines of Python hold it) receives
 * READY=1 once the listeners are up, WATCHDOG=1 at half of WATCHDOG_USEC, and STOPPING=1 on
 * SIGTERM, each sent for serve's own pid through systemd-notify.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { launchServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

const LISTENER = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("bound", flush=True)
while True:
    print(s.recv(4096).decode().replace("\\n", " "), flush=True)
`;

function available(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const tools = available('python3', ['--version']) && available('systemd-notify', ['--version']);

describe.runIf(tools)('modgate serve under a stand-in for systemd', () => {
  let data: TestDataDir;
  let folder: string;
  let listener: ChildProcess;
  let received = '';
  let serve: ModgateProcess;

  beforeAll(async () => {
    data = await makeDataDir();
    folder = await mkdtemp(join(tmpdir(), 'modgate-notify-'));
    const socket = join(folder, 'notify.sock');
    listener = spawn('python3', ['-c', LISTENER, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    listener.stdout?.on('data', (chunk) => (received += chunk));
    await eventually(() => received.includes('bound'));
    ({ serve } = await launchServe(data.dir, { env: { NOTIFY_SOCKET: socket, WATCHDOG_USEC: '400000' } }));
    await eventually(() => received.includes('WATCHDOG=1'), 30_000);
  }, 60_000);

  afterAll(async () => {
    if (serve) await stop(serve);
    listener?.kill('SIGTERM');
    await data?.remove();
    await rm(folder, { recursive: true, force: true });
  });

  it('reports READY=1 for its own pid once it listens', () => {
    expect(received).toContain(`MAINPID=${serve.pid} READY=1`);
    expect(serve.stdoutText()).toContain('"msg":"listening"');
  });

  it('pings the watchdog with WATCHDOG=1, again and again', async () => {
    await eventually(() => received.split('WATCHDOG=1').length > 3);
    expect(received).toContain(`MAINPID=${serve.pid} WATCHDOG=1`);
  });

  it('reports STOPPING=1 on SIGTERM and exits 0', async () => {
    expect(await stop(serve)).toBe(0);
    await eventually(() => received.includes('STOPPING=1'));
  });
});
