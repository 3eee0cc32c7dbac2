/**
 * The npm package as a user gets it: `npm pack` of pkg/ (scripts/build-pkg.ts), installed into an
 * empty project with `npm install ./modgate-….tgz` (from the registry for its dependencies), the
 * examples type-checked there as strict TypeScript consumers, compiled, and run with plain
 * Node.js against a real daemon: the mod on `modgate/bridge`, the bot on `modgate/client`, and a
 * CommonJS consumer through require().
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHostPort } from '../../daemon/host-port.ts';
import { buildPackage, packPackage } from '../../scripts/build-pkg.ts';
import { startProgram, type ModgateProcess } from '../../harness/processes.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SETUP_MS = 600_000;

let project: string;
let stack: Stack;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'modgate-consumer-'));
  // Built unchecked: the sources pass `npm run typecheck`, and the consumer's strict tsc below
  // checks every declaration the package ships (skipLibCheck: false).
  await buildPackage({ typeCheck: false });
  const tarball = await packPackage(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project });
  await mkdir(join(project, 'src'));
  for (const name of ['mod.ts', 'bot.ts'])
    await copyFile(join(ROOT, 'examples', name), join(project, 'src', name));
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        // The package's declarations and its dependencies' are checked; TypeScript's own lib
        // files (lib.dom.d.ts alone is 2.3 MB) are the same for every consumer and prove nothing
        // about the package: checking them was a sixth of this tsc's CPU time.
        skipLibCheck: false,
        skipDefaultLibCheck: true,
        rootDir: 'src',
        outDir: 'dist',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      include: ['src'],
    }),
  );
  stack = await startStack({ sim: false });
}, SETUP_MS);

afterAll(async () => {
  await stack?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

/** One of the installed project's scripts, its output kept. */
function start(file: string, env: Record<string, string>): ModgateProcess {
  return startProgram(process.execPath, [file], { cwd: project, env });
}

describe('the modgate npm package', () => {
  it('installs with only the dependencies its two entry points import', async () => {
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules', 'modgate', 'package.json'), 'utf8'),
    ) as { dependencies: Record<string, string>; exports: Record<string, unknown>; bin?: unknown };
    expect(Object.keys(manifest.dependencies)).toEqual([
      '@types/ws',
      'msgpackr',
      'openapi-fetch',
      'ws',
      'zod',
    ]);
    expect(Object.keys(manifest.exports)).toEqual(['./bridge', './client', './package.json']);
    expect(manifest.bin).toBeUndefined();
  });

  it('type-checks the example mod and bot as strict TypeScript and compiles them', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(result.stdout).toBe('');
  }, 300_000);

  it('serves server.status and players.list from the example mod, through the daemon', async () => {
    const credentials = JSON.parse(
      await readFile(join(stack.data.dir, 'mod-credentials.json'), 'utf8'),
    ) as Record<string, string>;
    const file = join(project, 'mod-credentials.json');
    await writeFile(
      file,
      JSON.stringify({ ...credentials, url: `ws://${formatHostPort(stack.daemon.modLink)}` }),
    );
    const mod = start('dist/mod.js', { MODGATE_CREDENTIALS: file });
    try {
      await eventually(async () => (await stack.call('/v1/server')).status === 200);
      expect(mod.output()).toContain('connected');
      expect((await stack.call('/v1/server')).json).toMatchObject({ player_count: 2, mod_version: '2.0.47' });
      const online = (await stack.call('/v1/players?online=true&limit=10')).json as {
        data: Array<{ char_name: string }>;
        total: number;
      };
      expect(online.data.map((row) => row.char_name)).toEqual(['Ada', 'Brook']);
      expect(online.total).toBe(2);
    } finally {
      mod.kill('SIGTERM');
      await once(mod, 'exit');
    }
  });

  it('lists online players, bans one and reads the ledger with the example bot', async () => {
    await stack.startSim();
    const bot = start('dist/bot.js', { MODGATE_URL: stack.baseUrl, MODGATE_KEY: stack.key });
    const [code] = (await once(bot, 'exit')) as [number | null];
    expect(bot.output()).toMatch(/^online: [1-9]/m);
    const banned = /^banned ([0-9]{17}) until /m.exec(bot.output())?.[1] as string;
    expect(code).toBe(0);
    expect(bot.output()).toMatch(/^ledger /m);
    const moderation = (await stack.call(`/v1/players/${banned}/moderation`)).json as {
      ban: { banned: boolean };
    };
    expect(moderation.ban.banned).toBe(true);
  });

  it('loads the client from CommonJS with require()', async () => {
    const file = join(project, 'consumer.cjs');
    await writeFile(
      file,
      [
        "const { createModgateClient } = require('modgate/client');",
        'const client = createModgateClient({ baseUrl: process.env.MODGATE_URL, apiKey: process.env.MODGATE_KEY });',
        "client.GET('/v1/server').then(({ data, error }) => console.log(data ? data.server_id : JSON.stringify(error)));",
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [file], {
      cwd: project,
      env: { ...process.env, MODGATE_URL: stack.baseUrl, MODGATE_KEY: stack.key },
    });
    expect(stdout.trim()).toBe(((await stack.call('/v1/server')).json as { server_id: string }).server_id);
  });
});
