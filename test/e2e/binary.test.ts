/**
 * The single executable itself, run the way an operator runs it: copied alone into an empty
 * folder, started with an environment that has no Node.js, no node_modules and no checkout on any
 * path. The README's "Running it for real" as separate processes, then the demo.
 *
 * Which binary: $MODGATE_BINARY when set (.ci/run builds dist/modgate and points here, so CI
 * checks the artifact it ships); otherwise the run's build from the current source, shared with
 * check-dockerfile.test.ts (test/support/shared-binary.ts), so it never passes on a stale dist/.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpServer } from '../../harness/binary-server.ts';
import { eventually } from '../../harness/stack.ts';
import { freePort } from '../../harness/ports.ts';
import { launchServe, start, startSim, stop, type StartOptions } from '../../harness/processes.ts';
import { sharedBinary } from '../support/shared-binary.ts';

const execFileAsync = promisify(execFile);
const packageVersion = (
  JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let work: string;
let bin: string;
/** No PATH entry with node in it, no NODE_OPTIONS, no HOME config: only the binary. */
let env: Record<string, string>;

async function modgate(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(bin, args, { cwd: work, env });
}

/** The binary alone, in the empty folder, with nothing but `env`. */
const asBinary = (): StartOptions => ({ program: [bin], cwd: work, env, bareEnv: true });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'modgate-binary-'));
  const source = await sharedBinary();
  if (process.env['MODGATE_BINARY']) {
    // The artifact and its checksum file agree (sha256sum -c would say the same).
    const sum = (await readFile(`${source}.sha256`, 'utf8')).split(/\s+/)[0];
    expect(
      createHash('sha256')
        .update(await readFile(source))
        .digest('hex'),
    ).toBe(sum);
  }
  bin = join(work, 'modgate');
  await copyFile(source, bin);
  await mkdir(join(work, 'empty-path'));
  env = { PATH: join(work, 'empty-path'), HOME: work, LANG: 'C.UTF-8' };
}, 300_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the single executable', () => {
  it('prints its version, the mod-link protocol and the embedded Node.js', async () => {
    const { stdout } = await modgate('--version');
    const lines = stdout.split('\n');
    expect(lines[0]).toBe(`modgate ${packageVersion}`);
    expect(lines[1]).toBe('mod-link protocol 1');
    expect(lines[2]).toMatch(/^node v24\.\d+\.\d+ \(embedded, single executable\)$/);
  });

  it('runs init, plan, api, keys, serve and sim, answers GET /v1/server and stops on SIGTERM', async () => {
    const dir = join(work, 'data');
    const key = await setUpServer(modgate, dir, 'Binary server');
    const { serve, apiPort, modPort } = await launchServe(dir, asBinary());
    const sim = startSim(dir, modPort, ['--players', '20'], asBinary());
    try {
      await eventually(() => serve.output().includes('"msg":"mod connected"'));
      const res = await fetch(`http://127.0.0.1:${apiPort}/v1/server`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ name: 'Binary server', online: true, mod_version: '2.1.0' });
      const doctor = await modgate(
        'doctor',
        '--data-dir',
        dir,
        '--listen',
        `127.0.0.1:${apiPort}`,
        '--mod-listen',
        `127.0.0.1:${modPort}`,
      ).catch((error: { stdout: string; code: number }) => error);
      expect(doctor.stdout).toMatch(/^(ok|warn) +api listen +127\.0\.0\.1:\d+: a modgate /m);
    } finally {
      expect(await stop(sim)).toBe(0);
      expect(await stop(serve)).toBe(0);
    }
    expect(serve.output()).toContain('"msg":"stopped"');
  }, 60_000);

  it('runs the demo, serves the key it prints, and serves the panel from its own assets', async () => {
    const port = await freePort();
    const demo = start(['demo', '--listen', `127.0.0.1:${port}`], asBinary());
    try {
      await eventually(() => demo.output().includes('Press Ctrl-C to stop.'));
      const key = /mg_live_[a-z0-9]{12}_[A-Za-z0-9]{40}/.exec(demo.output())?.[0];
      const res = await fetch(`http://127.0.0.1:${port}/v1/server`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      // The panel comes from the executable's assets: no esbuild, no panel/ folder beside it.
      const panel = /(http:\/\/127\.0\.0\.1:\d+)\/login#/.exec(demo.output())?.[1];
      const script = await fetch(`${panel}/panel.js`);
      expect(script.status).toBe(200);
      expect(await script.text()).toContain('Admin token');
    } finally {
      expect(await stop(demo, 'SIGINT')).toBe(0);
    }
  }, 60_000);

  it('prints hardened units for its own path with service install --dry-run', async () => {
    const { stdout } = await modgate('service', 'install', '--dry-run', '--bin', '/usr/local/bin/modgate');
    expect(stdout).toContain('ExecStart=/usr/local/bin/modgate serve $MODGATE_OPTIONS');
    expect(stdout).toContain('ProtectSystem=strict');
  });

  it('prints the docs it carries, with no docs/ folder beside it', async () => {
    const { stdout } = await modgate('docs', 'data-dir');
    expect(stdout).toBe(await readFile(new URL('../../docs/data-dir.md', import.meta.url), 'utf8'));
    expect((await modgate('docs')).stdout).toContain('operations');
  });

  it('exits 2 with one line on a usage error', async () => {
    const error = (await modgate('keys', 'list').catch((e: unknown) => e)) as {
      code: number;
      stderr: string;
    };
    expect(error.code).toBe(2);
    expect(error.stderr).toMatch(/^error: no data dir given: pass --data-dir DIR or set MODGATE_DATA_DIR/);
  });
});
