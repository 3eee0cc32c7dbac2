/**
 * The linux-arm64 executable (`scripts/build.ts --arch arm64`) run for real on this x86-64
 * machine under qemu-aarch64-static (scripts/emulator.ts): its version, `init`, `serve` with its
 * own `sim` answering GET /v1/server, and `mod test` against that simulator, each as the binary
 * alone in an empty folder with no Node.js on any path; and it is reproducible like the x64 one
 * (test/e2e/binary.test.ts): building again gives the same sha256.
 *
 * Which binary: $MODGATE_BINARY_ARM64 when set (.ci/run builds dist/modgate-linux-arm64 and points
 * here); otherwise this file builds one. Without qemu (Debian's qemu-user-static and the arm64
 * cross libraries, scripts/emulator.ts) it says so on stderr and skips; .ci/run installs them and
 * sets MODGATE_REQUIRE_QEMU=1, and then a missing qemu fails instead.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinary } from '../../../scripts/build.ts';
import { canRun, runCommand } from '../../../scripts/emulator.ts';
import { setUpServer } from '../../../harness/binary-server.ts';
import { eventually } from '../../../harness/stack.ts';
import { freePort } from '../../../harness/ports.ts';
import { launchServe, start, startSim, stop, type StartOptions } from '../../../harness/processes.ts';

const execFileAsync = promisify(execFile);
const packageVersion = (
  JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const runs = canRun('arm64') || process.env['MODGATE_REQUIRE_QEMU'] === '1';
if (!runs) console.error('test/e2e/dist/binary-arm64.test.ts: no qemu-aarch64-static, skipped');

let work: string;
let bin: string;
let env: Record<string, string>;

/** The arm64 binary under qemu, in the empty folder, with nothing but `env`. */
const asBinary = (): StartOptions => ({ program: runCommand('arm64', bin), cwd: work, env, bareEnv: true });

async function modgate(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const [program, ...prefix] = runCommand('arm64', bin);
  return execFileAsync(program, [...prefix, ...args], { cwd: work, env });
}

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe.runIf(runs)('the linux-arm64 executable under qemu', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'modgate-arm64-'));
    const given = process.env['MODGATE_BINARY_ARM64'];
    const source = given
      ? resolve(given)
      : (await buildBinary({ arch: 'arm64', outDir: join(work, 'build') })).binary;
    bin = join(work, 'modgate');
    await copyFile(source, bin);
    await mkdir(join(work, 'empty-path'));
    env = { PATH: join(work, 'empty-path'), HOME: work, LANG: 'C.UTF-8' };
  }, 600_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('is an aarch64 executable that prints its version and the embedded Node.js', async () => {
    const header = (await readFile(bin)).subarray(0, 20);
    expect(header.readUInt16LE(18)).toBe(183); // EM_AARCH64
    const { stdout } = await modgate('--version');
    expect(stdout.split('\n').slice(0, 3)).toEqual([
      `modgate ${packageVersion}`,
      'mod-link protocol 1',
      expect.stringMatching(/^node v24\.\d+\.\d+ \(embedded, single executable\)$/),
    ]);
  }, 60_000);

  it('runs init, api enable, keys, serve and its own sim, and answers GET /v1/server', async () => {
    const dir = join(work, 'data');
    const key = await setUpServer(modgate, dir, 'Arm server');
    const { serve, apiPort, modPort } = await launchServe(dir, asBinary());
    const sim = startSim(dir, modPort, ['--players', '5'], asBinary());
    try {
      await eventually(() => serve.output().includes('"msg":"mod connected"'), 120_000);
      const res = await fetch(`http://127.0.0.1:${apiPort}/v1/server`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ name: 'Arm server', online: true });
    } finally {
      expect(await stop(sim)).toBe(0);
      expect(await stop(serve)).toBe(0);
    }
  }, 240_000);

  it('passes its own simulator with mod test, every op and game case', async () => {
    const dir = join(work, 'mod-test-data');
    await modgate('init', '--data-dir', dir, '--name', 'Arm mod test');
    const port = await freePort();
    // Every op and game case, with deadlines for an emulated CPU: the link cases time the mod in
    // fractions of a second, which under qemu on a busy machine measures qemu (a missed ping after
    // ready failed a run at load 15); test/e2e/mod-test.test.ts runs them natively.
    const slow = ['--only', 'op.*,game.*', '--op-deadline', '30s'];
    const listen = ['--listen', `127.0.0.1:${port}`, '--json', '--wait', '120s'];
    const harness = start(['mod', 'test', '--data-dir', dir, ...listen, ...slow], asBinary());
    const sim = startSim(dir, port, ['--log-level', 'error'], asBinary());
    try {
      const code = await harness.exited();
      const report = JSON.parse(harness.stdoutText()) as { cases: Array<{ id: string; status: string }> };
      expect(report.cases.filter((c) => c.status === 'fail')).toEqual([]);
      expect(report.cases.length).toBeGreaterThan(10);
      expect(code).toBe(0);
    } finally {
      await stop(sim);
    }
  }, 300_000);

  it('is reproducible: building the same source again gives the same sha256', async () => {
    const again = await buildBinary({ arch: 'arm64', outDir: join(work, 'again') });
    expect(again.sha256).toBe(await sha256(bin));
    await rm(join(work, 'again'), { recursive: true, force: true });
  }, 600_000);
});
