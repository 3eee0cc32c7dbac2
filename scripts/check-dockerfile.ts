/**
 * `tsx scripts/check-dockerfile.ts [--binary FILE]`: checks the Dockerfile as far as a machine
 * without a Docker engine can, and prints each check on a line (`ok`, `fail`, `skip`), then what
 * it could not check. Exit 1 on any failure. test/scripts/check-dockerfile.test.ts runs it.
 *
 * 1. Read: the Dockerfile (scripts/dockerfile/parse.ts) and .dockerignore; pinned bases, both
 *    architectures built on their own platform from TARGETARCH (architectures.ts), a
 *    non-root USER, exec-form ENTRYPOINT, CMD and HEALTHCHECK, the data dir on a VOLUME the
 *    daemon's user owns, the shipped config's ports exposed, every COPY source found, every file
 *    the build reads kept by .dockerignore (static-checks.ts, build-inputs.ts).
 * 2. Run: `ldd` of the binary against the runtime base's libraries; the runtime stage's files
 *    laid out in a temp folder and run as the image would run them (runtime-check.ts).
 *
 * The binary: --binary, else $MODGATE_BINARY (CI builds dist/modgate first), else one built from
 * the current source into a temp folder (scripts/build.ts), so it is never a stale dist/.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildBinary } from './build.ts';
import { checkArchitectures } from './dockerfile/architectures.ts';
import { checkBuildInputs } from './dockerfile/build-inputs.ts';
import { parseDockerIgnore } from './dockerfile/dockerignore.ts';
import { imageModel } from './dockerfile/image-model.ts';
import { parseDockerfile } from './dockerfile/parse.ts';
import { checkLibraries, runRuntimeStage } from './dockerfile/runtime-check.ts';
import {
  checkCopies,
  checkHealthcheck,
  checkListeners,
  checkStages,
  checkUserAndCommands,
  checkVolume,
  imageReference,
  RUNTIME_BASES,
  shippedConfig,
  type Check,
} from './dockerfile/static-checks.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface CheckOptions {
  /** The folder holding Dockerfile and .dockerignore: the build context. */
  context?: string;
  /** dist/modgate as `npm run build` makes it; built into a temp folder when absent. */
  binary?: string;
  /** Each check as it is made. */
  log?: (line: string) => void;
}

export async function checkDockerfile(options: CheckOptions = {}): Promise<{ ok: boolean; checks: Check[] }> {
  const context = resolve(options.context ?? ROOT);
  const checks: Check[] = [];
  const report = (...more: Check[]) => {
    checks.push(...more);
    for (const check of more) options.log?.(`${check.level.padEnd(4)}  ${check.text}`);
  };
  const work = await mkdtemp(join(tmpdir(), 'modgate-check-dockerfile-'));
  try {
    const stages = parseDockerfile(await readFile(join(context, 'Dockerfile'), 'utf8'));
    const ignore = parseDockerIgnore(await readFile(join(context, '.dockerignore'), 'utf8'));
    const model = imageModel(stages, context, ignore);
    report(...checkStages(stages), ...(await checkArchitectures(stages)));
    report(...checkUserAndCommands(model), ...checkHealthcheck(model));
    report(...checkVolume(model), ...checkCopies(model), await checkBuildInputs(context, ignore));
    const { config, checks: configChecks } = await shippedConfig(model);
    report(...configChecks, ...(config ? checkListeners(model, config) : []));
    const binary = options.binary ?? (await buildBinary({ outDir: join(work, 'build') })).binary;
    report({ level: 'ok', text: `binary: ${binary}${options.binary ? '' : ' (built from this checkout)'}` });
    const base = RUNTIME_BASES[imageReference(stages.at(-1)!.image).name] ?? [];
    report(await checkLibraries(binary, base));
    if (!checks.some((check) => check.level === 'fail')) {
      report(...(await runRuntimeStage({ model, config, binary, root: join(work, 'image') })));
    } else report({ level: 'skip', text: 'runtime stage: not run, a check above failed' });
    report(await engineCheck());
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { ok: !checks.some((check) => check.level === 'fail'), checks };
}

/** What no script here can do: build the image and run it in a container. */
async function engineCheck(): Promise<Check> {
  const engine = await promisify(execFile)('docker', ['info', '--format', '{{.ServerVersion}}']).then(
    (result) => result.stdout.trim(),
    () => null,
  );
  return {
    level: 'skip',
    text:
      engine === null
        ? 'image: not built and not run: no Docker engine answers here (docker info), so the base images, ' +
          '--chown, the volume and the healthcheck inside a real container are unchecked'
        : `image: not built: a Docker engine answers (${engine}), but this script does not build images; ` +
          'build and run it as docs/docker.md says',
  };
}

function binaryFromArgs(argv: readonly string[]): string | undefined {
  const index = argv.indexOf('--binary');
  const given = index === -1 ? process.env['MODGATE_BINARY'] : argv[index + 1];
  return given ? resolve(given) : undefined;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const binary = binaryFromArgs(process.argv.slice(2));
  const { ok } = await checkDockerfile({ binary, log: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(ok ? 'Dockerfile: every check passed\n' : 'Dockerfile: some checks failed\n');
  process.exitCode = ok ? 0 : 1;
}
