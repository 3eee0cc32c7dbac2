/**
 * The runtime stage run without Docker: the files its COPY lines put into the image are laid out
 * in a temp folder as the image would hold them, and its ENTRYPOINT and CMD run from there with
 * the ENV it sets, as the current (non-root) user, a temp folder standing in for the volume and a
 * self-signed certificate for the mounted one. Then its HEALTHCHECK command, SIGTERM as `docker
 * stop` sends it, and the health check again, which must now fail.
 *
 * Without a chroot the image's absolute paths cannot be used as they are: each one (ENV values,
 * the command lines, the shipped config file's paths) is prefixed with the temp folder, and the
 * report says so. The binary runs on this machine's libraries, which `ldd` shows are only the
 * ones the runtime base provides.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { generate } from 'selfsigned';
import type { Config } from '../../daemon/config/config.ts';
import { formatHostPort } from '../../daemon/host-port.ts';
import { commandLine, type ImageModel } from './image-model.ts';
import type { Check } from './static-checks.ts';

const run = promisify(execFile);
const ok = (text: string): Check => ({ level: 'ok', text });
const fail = (text: string): Check => ({ level: 'fail', text });

/** `ldd` of the binary lists only libraries the runtime base provides. */
export async function checkLibraries(binary: string, provided: readonly string[]): Promise<Check> {
  const output = await run('ldd', [binary]).then(
    (result) => result.stdout,
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : String(error)),
  );
  if (output === null)
    return { level: 'skip', text: 'ldd: not on this machine, so the libraries were not checked' };
  const sonames = output
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '')
    .map((name) => name.split('/').at(-1)!);
  const extra = sonames.filter((name) => !provided.includes(name));
  return extra.length === 0
    ? ok(`ldd ${binary}: ${sonames.join(', ')}: all in the runtime base`)
    : fail(`ldd ${binary}: ${extra.join(', ')} not in the runtime base`);
}

export interface RuntimeInput {
  model: ImageModel;
  config: Config | null;
  binary: string;
  /** An empty temp folder: the image's root. */
  root: string;
}

export async function runRuntimeStage(input: RuntimeInput): Promise<Check[]> {
  const { model, root } = input;
  const checks: Check[] = [];
  const inRoot = (path: string) => (path.startsWith('/') ? join(root, path) : path);
  await layOut(input);
  checks.push(ok(`laid out the runtime stage's ${model.copies.length} COPY sources under ${root}`));
  const tls = await mountCertificate(input, inRoot);
  if (tls) checks.push(ok(`mounted a self-signed certificate at ${tls} (stands in for the TLS mount)`));
  const ports = { api: await freePort(), mod: await freePort() };
  const env = environment(input, inRoot, ports);
  checks.push(
    ok(
      `container paths prefixed with ${root}; MODGATE_LISTEN=${env['MODGATE_LISTEN']} and ` +
        `MODGATE_MOD_LISTEN=${env['MODGATE_MOD_LISTEN']} (as docker run -e would) instead of the config's ports`,
    ),
  );
  const argv = (commandLine(model) ?? []).map(inRoot);
  const [command = '', ...args] = argv;
  const init = await exitOf(command, ['init', '--name', 'check-dockerfile'], env);
  checks.push(
    init.code === 0 ? ok('init in the volume: exit 0') : fail(`init: exit ${init.code}: ${init.output}`),
  );
  const serve = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  serve.stdout.on('data', (chunk) => (output += chunk));
  serve.stderr.on('data', (chunk) => (output += chunk));
  const listening = await waitFor(() => output.includes('"msg":"listening"') || serve.exitCode !== null);
  if (!listening || serve.exitCode !== null) {
    serve.kill('SIGKILL');
    return [...checks, fail(`${argv.slice(1).join(' ')}: did not start: ${output.trim()}`)];
  }
  checks.push(ok(`ENTRYPOINT+CMD ${JSON.stringify(argv.slice(1))}: listening (${firstLine(output)})`));
  const healthArgv = (model.healthcheck?.exec ?? []).map(inRoot);
  const healthy = await exitOf(healthArgv[0] ?? '', healthArgv.slice(1), env);
  checks.push(
    healthy.code === 0
      ? ok(`HEALTHCHECK as written: exit 0: ${healthy.output.trim()}`)
      : fail(`HEALTHCHECK as written: exit ${healthy.code}: ${healthy.output.trim()}`),
  );
  serve.kill('SIGTERM');
  const [code] = (await once(serve, 'exit')) as [number | null];
  checks.push(
    code === 0 && output.includes('"msg":"stopped"')
      ? ok('SIGTERM (docker stop): drained and exited 0')
      : fail(`SIGTERM: exit ${code}: ${output.trim().split('\n').at(-1)}`),
  );
  const after = await exitOf(healthArgv[0] ?? '', healthArgv.slice(1), env);
  checks.push(
    after.code === 1
      ? ok(`HEALTHCHECK with the daemon stopped: exit 1: ${after.output.trim()}`)
      : fail(`HEALTHCHECK with the daemon stopped: exit ${after.code}, expected 1`),
  );
  return checks;
}

/** Every COPY source where the image holds it; the shipped config's paths prefixed. */
async function layOut({ model, binary, root }: RuntimeInput): Promise<void> {
  for (const copy of model.copies) {
    const dest = join(root, copy.dest);
    const { source } = copy;
    if (source.kind === 'missing') continue;
    if (source.kind === 'mkdir') {
      // COPY creates the folder with the default mode, not the source's; init tightens it.
      await mkdir(dest, { recursive: true, mode: 0o755 });
      continue;
    }
    await mkdir(dirname(dest), { recursive: true });
    const from =
      source.kind === 'context' ? source.path : source.file === 'modgate' ? binary : `${binary}.sha256`;
    await copyFile(from, dest);
    if (source.kind === 'npm-run-build') await chmod(dest, 0o755);
  }
  const config = model.env['MODGATE_CONFIG'];
  if (config) {
    const file = join(root, config);
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text.replace(/"(\/[^"]*)"/g, (_, path: string) => JSON.stringify(join(root, path))),
    );
  }
}

async function mountCertificate({ config }: RuntimeInput, inRoot: (path: string) => string) {
  const { tls_cert: cert, tls_key: key } = config?.api ?? {};
  if (!cert || !key) return null;
  const pems = await generate([{ name: 'commonName', value: 'modgate.example' }], { keyType: 'ec' });
  await mkdir(dirname(inRoot(cert)), { recursive: true });
  await mkdir(dirname(inRoot(key)), { recursive: true });
  await writeFile(inRoot(cert), pems.cert);
  await writeFile(inRoot(key), pems.private, { mode: 0o600 });
  return dirname(cert);
}

function environment(
  { model, config, root }: RuntimeInput,
  inRoot: (path: string) => string,
  ports: { api: number; mod: number },
): Record<string, string> {
  const image = Object.fromEntries(Object.entries(model.env).map(([key, value]) => [key, inRoot(value)]));
  const host = (address: { host: string } | undefined, fallback: string) => address?.host ?? fallback;
  return {
    ...image,
    // distroless's PATH and the nonroot user's HOME, inside the laid-out root: no node anywhere.
    PATH: ['/usr/local/bin', '/usr/bin', '/bin'].map(inRoot).join(':'),
    HOME: join(root, 'home/nonroot'),
    LANG: 'C.UTF-8',
    MODGATE_LISTEN: formatHostPort({ host: host(config?.api.listen, '127.0.0.1'), port: ports.api }),
    MODGATE_MOD_LISTEN: formatHostPort({ host: host(config?.mod_link.listen, '127.0.0.1'), port: ports.mod }),
  };
}

async function exitOf(command: string, args: string[], env: Record<string, string>) {
  return run(command, args, { env }).then(
    (result) => ({ code: 0, output: result.stdout + result.stderr }),
    (error: { code?: number | string; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      output: `${error.stdout ?? ''}${error.stderr ?? String(error.code)}`,
    }),
  );
}

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function firstLine(output: string): string {
  const line = output.split('\n').find((text) => text.includes('"msg":"listening"')) ?? '';
  const parsed = JSON.parse(line) as { api?: string; mod_link?: string; tls?: boolean };
  return `api ${parsed.api}${parsed.tls ? ' over TLS' : ''}, mod link ${parsed.mod_link}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
