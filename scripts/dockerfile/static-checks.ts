/**
 * What can be checked of the Dockerfile by reading it (with the checkout beside it): pinned base
 * images, a non-root user, exec-form commands, the data dir on a volume the daemon's user owns,
 * the health check, the ports of the config file the image ships, every COPY source. Each check is
 * one line of scripts/check-dockerfile.ts's report.
 */
import { loadConfig, type Config } from '../../daemon/config/config.ts';
import { formatHostPort, isLoopbackHost } from '../../daemon/host-port.ts';
import { commandLine, type ImageModel } from './image-model.ts';
import type { Stage } from './parse.ts';

export interface Check {
  level: 'ok' | 'fail' | 'skip';
  text: string;
}

/**
 * The runtime bases this check knows, with the shared libraries each provides (the sonames
 * `ldd` prints): distroless "cc" is "base" (libc6, with libm, libdl, libpthread, librt and the
 * loader) plus libgcc-s1, libstdc++6 and libgomp1 (GoogleContainerTools/distroless,
 * cc/config.bzl).
 */
export const RUNTIME_BASES: Record<string, readonly string[]> = {
  'gcr.io/distroless/cc-debian12': [
    'linux-vdso.so.1',
    'libc.so.6',
    'libm.so.6',
    'libdl.so.2',
    'libpthread.so.0',
    'librt.so.1',
    'libgcc_s.so.1',
    'libstdc++.so.6',
    'libgomp.so.1',
    'ld-linux-x86-64.so.2',
  ],
};

const ok = (text: string): Check => ({ level: 'ok', text });
const fail = (text: string): Check => ({ level: 'fail', text });

/** `name[:tag][@digest]` split; the tag is after the last `:` that follows the last `/`. */
export function imageReference(image: string): { name: string; tag: string | null; digest: string | null } {
  const [withTag = '', digest = null] = image.split('@') as [string, string?];
  const colon = withTag.lastIndexOf(':');
  const tagged = colon > withTag.lastIndexOf('/');
  return {
    name: tagged ? withTag.slice(0, colon) : withTag,
    tag: tagged ? withTag.slice(colon + 1) : null,
    digest: digest ?? null,
  };
}

export function checkStages(stages: Stage[]): Check[] {
  const names = new Set(stages.map((stage) => stage.name).filter((name) => name !== null));
  const checks = stages.map((stage): Check => {
    if (names.has(stage.image)) return ok(`FROM ${stage.image}: an earlier stage`);
    const { tag, digest } = imageReference(stage.image);
    if (digest) return ok(`FROM ${stage.image}: pinned by digest`);
    if (tag === null || tag === 'latest')
      return fail(`FROM ${stage.image}: not pinned (give a tag or a digest)`);
    return ok(`FROM ${stage.image}: pinned by tag ${tag}`);
  });
  const base = imageReference(stages.at(-1)!.image).name;
  checks.push(
    RUNTIME_BASES[base]
      ? ok(`runtime base ${base}: its shared libraries are known to this check`)
      : fail(`runtime base ${base}: unknown here; add the libraries it provides to RUNTIME_BASES`),
  );
  return checks;
}

export function checkUserAndCommands(model: ImageModel): Check[] {
  const checks: Check[] = [];
  const user = model.user?.split(':')[0];
  if (user === undefined) checks.push(fail('USER: not set; the image would run as root'));
  else if (user === 'nonroot' || (/^\d+$/.test(user) && Number(user) !== 0))
    checks.push(ok(`USER ${model.user}: not root`));
  else checks.push(fail(`USER ${model.user}: give a non-zero numeric uid (or nonroot)`));
  for (const instruction of [model.entrypoint, model.cmd]) {
    if (instruction === null) continue;
    const keyword = instruction.keyword;
    checks.push(
      instruction.exec
        ? ok(`${keyword} ${instruction.text}: exec form (signals reach modgate, no shell needed)`)
        : fail(`${keyword} ${instruction.text}: shell form; distroless has no shell, use a JSON array`),
    );
  }
  const argv = commandLine(model);
  if (argv?.[0] === undefined) checks.push(fail('ENTRYPOINT/CMD: no command'));
  else checks.push(providedFile('ENTRYPOINT', argv[0], model));
  const signal = model.stopSignal ?? 'SIGTERM';
  checks.push(
    signal === 'SIGTERM'
      ? ok('STOPSIGNAL SIGTERM: docker stop asks serve to drain and stop')
      : fail(`STOPSIGNAL ${signal}: serve drains on SIGTERM`),
  );
  return checks;
}

export function checkHealthcheck(model: ImageModel): Check[] {
  const health = model.healthcheck;
  if (health === null || health.none) return [fail('HEALTHCHECK: none')];
  if (health.exec === null) {
    return [fail(`HEALTHCHECK ${health.instruction.text}: not exec form; distroless has no shell`)];
  }
  const checks = [ok(`HEALTHCHECK CMD ${JSON.stringify(health.exec)}: exec form`)];
  checks.push(providedFile('HEALTHCHECK', health.exec[0] ?? '', model));
  // `modgate healthcheck` waits at most 3 s for the answer, after the executable has started:
  // up to ~2.5 s on a loaded 2-core machine (docs/docker.md, "Health checks").
  const timeout = seconds(health.instruction.flags['timeout'] ?? '30s');
  checks.push(
    timeout >= 8
      ? ok(
          `HEALTHCHECK --timeout=${timeout}s: room for the executable's start-up and healthcheck's 3 s limit`,
        )
      : fail(`HEALTHCHECK --timeout=${timeout}s: give at least 8s (start-up, then healthcheck's 3 s limit)`),
  );
  return checks;
}

/** The data dir the command uses: `--data-dir` in the command line, else MODGATE_DATA_DIR. */
export function dataDirOf(model: ImageModel): string | null {
  const argv = commandLine(model) ?? [];
  const flag = argv.indexOf('--data-dir');
  return (flag === -1 ? undefined : argv[flag + 1]) ?? model.env['MODGATE_DATA_DIR'] ?? null;
}

export function checkVolume(model: ImageModel): Check[] {
  const dir = dataDirOf(model);
  if (dir === null) return [fail('data dir: neither --data-dir in CMD nor MODGATE_DATA_DIR')];
  const volume = model.volumes.find((path) => dir === path || dir.startsWith(`${path.replace(/\/$/, '')}/`));
  if (volume === undefined)
    return [fail(`VOLUME ${JSON.stringify(model.volumes)}: does not hold the data dir ${dir}`)];
  const checks = [ok(`VOLUME ${volume}: holds the data dir ${dir}`)];
  const seed = model.copies.find((copy) => copy.dest === dir);
  const uid = model.user?.split(':')[0];
  if (seed === undefined)
    checks.push(fail(`${dir}: not created by a COPY; a new volume would belong to root`));
  else if (seed.chown?.split(':')[0] !== uid)
    checks.push(
      fail(
        `COPY to ${dir}: ${seed.chown ? `--chown=${seed.chown}` : 'no --chown (root)'} is not the USER ${model.user}`,
      ),
    );
  else
    checks.push(ok(`COPY --chown=${seed.chown} to ${dir}: a new named volume belongs to the daemon's user`));
  const late = model.copies.filter(
    (copy) => copy.dest.startsWith(volume) && copy.line > (model.volumeLine ?? 0),
  );
  if (late.length > 0)
    checks.push(fail(`COPY into ${volume} after VOLUME (line ${late[0]!.line}): discarded`));
  return checks;
}

export function checkCopies(model: ImageModel): Check[] {
  return model.copies.map((copy) => {
    const { source } = copy;
    if (source.kind === 'missing') return fail(`COPY ${copy.from} (line ${copy.line}): ${source.why}`);
    const where =
      source.kind === 'context'
        ? 'in the build context'
        : source.kind === 'mkdir'
          ? 'made by mkdir in the build stage'
          : `made by npm run build (dist/${source.file})`;
    return ok(`COPY ${copy.from} -> ${copy.dest}: ${where}`);
  });
}

/** The config file the image ships (MODGATE_CONFIG), loaded by the daemon's own loader. */
export async function shippedConfig(model: ImageModel): Promise<{ config: Config | null; checks: Check[] }> {
  const path = model.env['MODGATE_CONFIG'];
  if (path === undefined)
    return { config: null, checks: [ok('MODGATE_CONFIG: not set; serve runs on defaults')] };
  const copy = model.copies.find((item) => item.dest === path);
  if (copy?.source.kind !== 'context')
    return { config: null, checks: [fail(`${path}: not copied from the context`)] };
  try {
    const config = await loadConfig(copy.source.path);
    return { config, checks: [ok(`${path} (${copy.from}): valid for modgate config check`)] };
  } catch (error) {
    return { config: null, checks: [fail(`${path} (${copy.from}): ${(error as Error).message}`)] };
  }
}

/** EXPOSE covers the config's two listeners, and a public API listener serves HTTPS. */
export function checkListeners(model: ImageModel, config: Config): Check[] {
  const checks: Check[] = [];
  for (const [what, address] of [
    ['api.listen', config.api.listen],
    ['mod_link.listen', config.mod_link.listen],
  ] as const) {
    if (address === undefined) continue;
    checks.push(
      model.ports.includes(address.port)
        ? ok(`EXPOSE ${address.port}: ${what} ${formatHostPort(address)}`)
        : fail(`EXPOSE ${model.ports.join(' ')}: misses ${what} ${formatHostPort(address)}`),
    );
  }
  const api = config.api.listen;
  if (api !== undefined && !isLoopbackHost(api.host)) {
    checks.push(
      config.api.tls_cert && config.api.tls_key
        ? ok(`api.listen ${formatHostPort(api)} serves HTTPS (${config.api.tls_cert})`)
        : fail(
            `api.listen ${formatHostPort(api)} without tls_cert and tls_key: serve refuses plain HTTP there`,
          ),
    );
  }
  return checks;
}

/** An absolute path that a COPY of the final stage puts into the image. */
function providedFile(what: string, path: string, model: ImageModel): Check {
  const copy = model.copies.find((item) => item.dest === path);
  return copy
    ? ok(`${what} ${path}: copied into the image (line ${copy.line})`)
    : fail(`${what} ${path}: no COPY puts it into the image (distroless has nothing of its own there)`);
}

function seconds(duration: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(duration);
  if (!match) return Number.NaN;
  const factor = { ms: 0.001, s: 1, m: 60, h: 3_600 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * factor;
}
