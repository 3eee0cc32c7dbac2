/**
 * `npm start` runs `modgate demo`; the README promises curl lines that work as printed. This
 * runs the demo and executes the printed lines, literally, through a shell.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../cli/demo.ts';
import { processIo } from '../../cli/io.ts';
import { freePort } from '../../harness/ports.ts';

const sh = promisify(execFile);

/** .ci/run installs zsh and sets this, so CI fails instead of skipping the zsh run. */
const zshRequired = process.env['MODGATE_REQUIRE_ZSH'] === '1';
const shells = zshRequired || hasShell('zsh') ? ['bash', 'zsh'] : ['bash'];

function hasShell(name: string): boolean {
  try {
    execFileSync(name, ['-c', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('modgate demo', () => {
  let output = '';
  let errors = '';
  let modPort = 0;
  let ready: { baseUrl: string; key: string; dataDir: string; panelLoginUrl: string };
  let stop: () => void;
  let finished: Promise<void>;

  beforeAll(async () => {
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    // What `init` writes into mod-credentials.json when MODGATE_MOD_LISTEN is set (a free port,
    // so files running beside this one cannot hold the default 8788).
    modPort = await freePort();
    await new Promise<void>((resolve, reject) => {
      finished = runDemo({
        listen: { host: '127.0.0.1', port: 0 },
        adminListen: { host: '127.0.0.1', port: 0 },
        io: processIo({
          stdout: { write: (text: string) => (output += text) },
          stderr: { write: (text: string) => ((errors += text), true) },
          env: { ...process.env, MODGATE_MOD_LISTEN: `127.0.0.1:${modPort}` },
        }),
        stop: stopped,
        onReady: (info) => {
          ready = info;
          resolve();
        },
      });
      finished.catch(reject);
    });
  });

  afterAll(async () => {
    stop();
    await finished;
  });

  it('starts its mod link where mod-credentials.json tells the mod to dial, with nothing to warn about', () => {
    expect(output).toContain(`ws://127.0.0.1:${modPort}`);
    expect(errors).toBe('');
  });

  it('prints the key once and the base URL', () => {
    expect(output).toContain(ready.key);
    expect(output).toContain(`${ready.baseUrl}/v1`);
  });

  it('prints the panel URL with a one-time sign-in link that signs in once', async () => {
    expect(output).toContain(ready.panelLoginUrl);
    const [base, code] = ready.panelLoginUrl.split('/login#') as [string, string];
    expect((await fetch(`${base}/`)).headers.get('content-security-policy')).toContain("default-src 'self'");
    const signIn = () =>
      fetch(`${base}/admin/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
    expect((await signIn()).status).toBe(201);
    expect((await signIn()).status).toBe(401);
  });

  // zsh globs an unquoted `?` (`zsh: no matches found`); the lines must survive both shells.
  it.each(shells)(
    'prints curl lines that work as printed in %s',
    async (shell) => {
      // A line's expected status is the one its comment names (`# no key: 401`), else 200.
      const lines = output
        .split('\n')
        .filter((line) => line.trim().startsWith('curl '))
        .map((line) => ({
          command: line.replace(/#.*$/, '').trim(),
          expected: /#.*\b(\d{3})\b/.exec(line)?.[1] ?? '200',
        }));
      expect(lines.length).toBeGreaterThanOrEqual(3);
      const codes = await Promise.all(
        lines.map(
          async ({ command }) =>
            (await sh(shell, ['-c', `${command} -o /dev/null -w '%{http_code}'`])).stdout,
        ),
      );
      expect(codes).toEqual(lines.map((line) => line.expected));
      // A shell and a curl per line, all at once: on a loaded 2-core machine that took over 15 s.
    },
    60_000,
  );

  it('deletes its throwaway data dir when it stops', async () => {
    stop();
    await finished;
    expect(existsSync(ready.dataDir)).toBe(false);
  });
});
