/**
 * `npm run build`: the single executable `dist/modgate` and its checksum `dist/modgate.sha256`
 * for linux-x64 (Node's single executable applications, not pkg). `--arch x64|arm64` builds for
 * that architecture instead, as `modgate-linux-<arch>` (and its `.sha256`): the names a release
 * carries (docs/operations.md, "The binary"). Five steps, each a function below:
 *
 * 1. bundle: esbuild turns cli/main.ts and every dependency into one CommonJS file. Node
 *    24's single executable runs its main script as CommonJS only (`"mainFormat": "module"` is
 *    newer than 24), so the bundle is CJS, main.ts has no top-level await, and `import.meta.url`
 *    is rewritten to the executable's own file URL. package.json is inlined by esbuild, and so
 *    are docs/*.md (for `modgate docs`). The optional native addons (msgpackr-extract,
 *    utf-8-validate) stay out: their packages load them inside try/catch and fall back to
 *    JavaScript; ws's `bufferutil` is protocol/ws-masking.ts (`BUNDLE_ALIASES`). A second, small bundle,
 *    cli/sea-main.ts, is the executable's main script: it answers `--version` itself and
 *    compiles the CLI bundle (an asset of the executable) only for the other commands, so
 *    `--version` starts like bare Node (docs/performance.md). The operator panel's browser files
 *    (panel/, daemon/admin/panel/panel-bundle.ts) are built too and carried as two assets.
 * 2. cache: the embedded Node writes a V8 code cache of the CLI bundle, warmed by loading what
 *    `serve` loads, the same bytes on every build (scripts/code-cache.ts); the executable
 *    carries it as a second asset, so `serve` skips most of its compiling.
 * 3. blob: the embedded Node itself writes the preparation blob (`--experimental-sea-config`);
 *    a blob must come from the same Node version that runs it. For arm64 on an x86-64 machine,
 *    the arm64 Node writes the cache and the blob under qemu (scripts/emulator.ts). The build is reproducible: the
 *    same source and lockfile give the same sha256, wherever and however often it is built.
 * 4. inject: postject puts the blob into a copy of that `node` binary: npm `node-linux-<arch>`, at the
 *    version and sha512 pinned in scripts/embedded-node.json, fetched on demand (embedded-node.ts)
 *    so that `npm install` never downloads it.
 * 5. seal: mode 0755, sha256sum-format checksum, and `--version` run once as a smoke test.
 *
 * Run with `tsx scripts/build.ts [--arch x64|arm64] [--out DIR] [--release-pubkey FILE]
 * [--version VERSION]`; `--out DIR` writes somewhere other than dist/. `--release-pubkey FILE`
 * (or MODGATE_BUILD_RELEASE_PUBKEY=FILE) embeds that minisign public key as the one key
 * `self-update` trusts, in place of the project's (cli/release/release-source.ts); `--version`
 * builds the binary as that version instead of package.json's. Both are read here, at build time:
 * the binary has no run-time way to change either (docs/security.md, "Releases and self-update").
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { parsePublicKey } from '../cli/release/minisign.ts';
import { readDocsFolder } from '../cli/docs-command.ts';
import { buildPanelBundle, PANEL_FILES, writeRouteSummaries } from '../daemon/admin/panel/panel-bundle.ts';
import { ADMIN_ROUTES } from '../daemon/admin/routes/index.ts';
import { ROUTES } from '../daemon/routes/index.ts';
import { BUNDLE_ALIASES, CHECKOUT_ONLY, OPTIONAL_NATIVE } from './bundle-options.ts';
import { makeCodeCache, type NodeCommand } from './code-cache.ts';
import { type Arch, embeddedNodePath, isArch } from './embedded-node.ts';
import { runCommand } from './emulator.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE_JSON = join(ROOT, 'package.json');
const require = createRequire(import.meta.url);

/** The resource name and fuse Node looks for at start-up (Node's SEA docs, "Injecting"). */
const SEA_RESOURCE = 'NODE_SEA_BLOB';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const EMBEDDED_NODE_MAJOR = 24;

/** The CLI bundle's asset name, and its V8 code cache's; cli/sea-main.ts loads them by these names. */
const CLI_ASSET = 'modgate.cjs';
const CODE_CACHE_ASSET = 'modgate.cjs.v8-cache';
/**
 * The CLI bundle is stored wrapped as a CommonJS module function, so that the executable compiles
 * exactly these bytes and the code cache (scripts/code-cache.ts) is made from exactly them.
 */
const CLI_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

interface BuildPaths {
  out: string;
  work: string;
  /** The executable's main script: cli/sea-main.ts. */
  main: string;
  /** The CLI bundle as esbuild writes it. */
  bundle: string;
  /** The CLI bundle wrapped as a module function: the asset. */
  wrapped: string;
  cache: string;
  blob: string;
  binary: string;
}

export interface BuildOptions {
  /**
   * The architecture to build for. Unset: x64, named `modgate` (what `npm run build`, the README
   * and the tests use); set: named `modgate-linux-<arch>`, as a release names it.
   */
  arch?: Arch;
  /** Where the binary and its checksum go; dist/ by default. */
  outDir?: string;
  /** Progress lines (`bundle  0.3 s`); silent by default. */
  log?: (line: string) => void;
  /**
   * Filled with the absolute path of every source file the bundles carry (esbuild's metafile):
   * the release's SBOM lists the npm packages among them (scripts/release.ts).
   */
  bundled?: Set<string>;
  /**
   * The minisign public key `self-update` is to trust (a `.pub` file's text or its base64 line);
   * unset: the project's key in cli/release/release-source.ts.
   */
  releasePublicKey?: string;
  /** The version the binary is (`--version`, self-update's comparisons); package.json's by default. */
  version?: string;
}

/** What a build fixes in the bundle: the version it reports and the release key it trusts. */
interface Embedded {
  version: string;
  /** The key's base64 line, or undefined for the project's key. */
  releasePublicKey: string | undefined;
}

export async function buildBinary(options: BuildOptions = {}): Promise<{ binary: string; sha256: string }> {
  const arch = options.arch ?? 'x64';
  const name = options.arch === undefined ? 'modgate' : `modgate-linux-${arch}`;
  const paths = pathsIn(resolve(options.outDir ?? join(ROOT, 'dist')), name);
  const log = options.log ?? (() => undefined);
  const embedded = await embeddedValues(options);
  const step = timed(log);
  await rm(paths.work, { recursive: true, force: true });
  await mkdir(paths.work, { recursive: true });
  const node = await step('node', () => embeddedNode(arch, log));
  await step('bundle', () => bundle(paths, options.bundled ?? new Set(), embedded));
  await step('cache', () =>
    makeCodeCache(node.command, {
      source: paths.wrapped,
      cache: paths.cache,
      filename: CLI_ASSET,
      work: paths.work,
    }),
  );
  await step('blob', () => makeBlob(node.command, paths));
  await step('inject', () => inject(node.path, paths));
  const sha256 = await step('seal', () => seal(arch, paths, embedded.version));
  await rm(paths.work, { recursive: true, force: true });
  return { binary: paths.binary, sha256 };
}

/** The version and key to embed, checked before anything is built. */
async function embeddedValues(options: BuildOptions): Promise<Embedded> {
  const version =
    options.version ?? (JSON.parse(await readFile(PACKAGE_JSON, 'utf8')) as { version: string }).version;
  // What compareVersions (cli/release/self-update.ts) orders: major.minor.patch[-pre].
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
    throw new Error(`version ${version}: give major.minor.patch, e.g. 1.2.3 or 1.2.3-rc.1`);
  }
  const key = options.releasePublicKey;
  if (key === undefined) return { version, releasePublicKey: undefined };
  parsePublicKey(key);
  return { version, releasePublicKey: key.trim().split('\n').at(-1)?.trim() };
}

function pathsIn(out: string, name: string): BuildPaths {
  // One work folder per binary, so that both architectures can be built into one folder at once.
  const work = join(out, `.build-${name}`);
  return {
    out,
    work,
    main: join(work, 'sea-main.cjs'),
    bundle: join(work, 'cli-bundle.cjs'),
    wrapped: join(work, CLI_ASSET),
    cache: join(work, CODE_CACHE_ASSET),
    blob: join(work, 'modgate.blob'),
    binary: join(out, name),
  };
}

/**
 * The pinned `node` binary for `arch` (fetched on first use), checked to be the major we embed;
 * `command` runs it here (under qemu for another architecture).
 */
async function embeddedNode(
  arch: Arch,
  log: (line: string) => void,
): Promise<{ path: string; command: NodeCommand; version: string }> {
  const path = await embeddedNodePath({ arch, log });
  const command = runCommand(arch, path);
  const { stdout } = await run(command[0], [...command.slice(1), '--version']);
  const version = stdout.trim();
  if (!version.startsWith(`v${EMBEDDED_NODE_MAJOR}.`)) {
    throw new Error(`${path} is Node ${version}; the binary embeds Node ${EMBEDDED_NODE_MAJOR}`);
  }
  return { path, command, version };
}

async function bundle(paths: BuildPaths, bundled: Set<string>, embedded: Embedded): Promise<void> {
  await bundleOne(join(ROOT, 'cli/main.ts'), paths.bundle, bundled, embedded);
  const source = await readFile(paths.bundle, 'utf8');
  // cli/sea-main.ts reads the asset as latin1, which equals UTF-8 for ASCII only.
  if (/[^\p{ASCII}]/u.test(source)) throw new Error('the CLI bundle is not ASCII (esbuild charset)');
  await writeFile(paths.wrapped, `${CLI_WRAPPER[0]}${source}${CLI_WRAPPER[1]}`);
  await bundleOne(join(ROOT, 'cli/sea-main.ts'), paths.main, bundled, embedded);
  await bundlePanel(paths, bundled);
}

/** The operator panel's files, assets named as panel-assets.ts reads them (`panel.js`, `panel.css`). */
async function bundlePanel(paths: BuildPaths, bundled: Set<string>): Promise<void> {
  const panel = await buildPanelBundle(writeRouteSummaries([...ROUTES, ...ADMIN_ROUTES]), bundled);
  for (const name of PANEL_FILES) await writeFile(join(paths.work, name.slice(1)), panel[name]);
}

async function bundleOne(
  entry: string,
  outfile: string,
  bundled: Set<string>,
  embedded: Embedded,
): Promise<void> {
  const result = await build({
    // Module names in the bundle are relative to this folder, whatever the caller's folder.
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: `node${EMBEDDED_NODE_MAJOR}`,
    format: 'cjs',
    external: [...OPTIONAL_NATIVE, ...CHECKOUT_ONLY],
    alias: { ...BUNDLE_ALIASES },
    plugins: [packageVersion(embedded.version)],
    // In a single executable __filename is the executable itself (Node's SEA docs).
    banner: { js: "const __modgate_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
    // `modgate docs`: docs/*.md travel inside the binary (cli/docs-command.ts), as one string
    // literal of JSON. esbuild hoists an object define to the bundle's top level, where every
    // command, serve too, built all the docs' strings at start (half a MB of heap for its life);
    // a string inside a function is only made when that function runs.
    define: {
      'import.meta.url': '__modgate_import_meta_url',
      MODGATE_EMBEDDED_DOCS_JSON: JSON.stringify(
        JSON.stringify(readDocsFolder(new URL('../docs/', import.meta.url))),
      ),
      // Always defined, `undefined` included, so the bundle holds a constant and no global
      // lookup that code at run time could answer.
      MODGATE_BUILD_RELEASE_PUBKEY:
        embedded.releasePublicKey === undefined ? 'undefined' : JSON.stringify(embedded.releasePublicKey),
    },
    minifySyntax: true,
    minifyWhitespace: true,
    // Non-ASCII characters as escapes (esbuild's default, stated): the asset is read as latin1.
    charset: 'ascii',
    legalComments: 'eof',
    logLevel: 'warning',
    metafile: true,
  });
  if (result.errors.length > 0) throw new Error('esbuild failed');
  for (const input of Object.keys(result.metafile.inputs)) bundled.add(resolve(ROOT, input));
}

/**
 * package.json as the bundle sees it, with `version` set: every place that reports the version
 * (`--version`, the admin status, the webhooks' User-Agent, the metrics) imports it from there.
 */
function packageVersion(version: string): Plugin {
  return {
    name: 'modgate-package-version',
    setup(plugin) {
      plugin.onLoad({ filter: /[\\/]package\.json$/ }, async (args) => {
        if (args.path !== PACKAGE_JSON) return undefined;
        const json = JSON.parse(await readFile(args.path, 'utf8')) as Record<string, unknown>;
        return { contents: JSON.stringify({ ...json, version }), loader: 'json' };
      });
    },
  };
}

async function makeBlob(node: NodeCommand, paths: BuildPaths): Promise<void> {
  const config = join(paths.work, 'sea-config.json');
  await writeFile(
    config,
    JSON.stringify({
      // Relative to the work folder: the blob records this name, and an absolute path would make
      // the checksum depend on where the build ran.
      main: basename(paths.main),
      output: basename(paths.blob),
      assets: {
        [CLI_ASSET]: basename(paths.wrapped),
        [CODE_CACHE_ASSET]: basename(paths.cache),
        ...Object.fromEntries(PANEL_FILES.map((name) => [name.slice(1), name.slice(1)])),
      },
      disableExperimentalSEAWarning: true,
      // Not Node's code cache for the main script: V8 does not write it byte for byte the same
      // twice, and a build that always yields the same sha256 for the same source lets anyone
      // check a published modgate.sha256 by rebuilding. The CLI bundle's cache, made
      // reproducibly by scripts/code-cache.ts, is an asset instead.
      useCodeCache: false,
    }),
  );
  await run(node[0], [...node.slice(1), '--experimental-sea-config', config], { cwd: paths.work });
}

async function inject(node: string, paths: BuildPaths): Promise<void> {
  const target = join(paths.work, 'modgate');
  await copyFile(node, target);
  await chmod(target, 0o755);
  const postject = require.resolve('postject/dist/cli.js');
  try {
    // postject (LIEF) prints harmless "Can't find string offset" warnings for ELF notes; only
    // its output on failure is worth showing.
    await run(process.execPath, [postject, target, SEA_RESOURCE, paths.blob, '--sentinel-fuse', SEA_FUSE], {
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`postject failed:\n${stdout}${stderr}`, { cause: error });
  }
}

async function seal(arch: Arch, paths: BuildPaths, version: string): Promise<string> {
  const built = join(paths.work, 'modgate');
  const [program, ...prefix] = runCommand(arch, built);
  const { stdout } = await run(program, [...prefix, '--version']);
  const expected = `modgate ${version}`;
  if (!stdout.startsWith(`${expected}\n`)) throw new Error(`the built binary printed:\n${stdout}`);
  // --version never loads the CLI bundle; --help does.
  const help = await run(program, [...prefix, '--help']);
  if (!help.stdout.startsWith('Usage: modgate')) throw new Error(`the built binary printed:\n${help.stdout}`);
  await rename(built, paths.binary);
  const sha256 = createHash('sha256')
    .update(await readFile(paths.binary))
    .digest('hex');
  // sha256sum format: `cd dist && sha256sum -c modgate.sha256`.
  await writeFile(`${paths.binary}.sha256`, `${sha256}  ${basename(paths.binary)}\n`);
  return sha256;
}

function timed(log: (line: string) => void) {
  return async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await action();
    log(`${name.padEnd(7)} ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
}

/**
 * `--arch x64|arm64 --out DIR --release-pubkey FILE --version VERSION`, all optional;
 * MODGATE_BUILD_RELEASE_PUBKEY=FILE when `--release-pubkey` is not given.
 */
async function optionsFromArgs(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<Pick<BuildOptions, 'arch' | 'outDir' | 'releasePublicKey' | 'version'>> {
  const { values } = parseArgs({
    args: argv,
    options: {
      arch: { type: 'string' },
      out: { type: 'string' },
      'release-pubkey': { type: 'string' },
      version: { type: 'string' },
    },
  });
  if (values.arch !== undefined && !isArch(values.arch)) {
    throw new Error(`--arch ${values.arch}: give x64 or arm64`);
  }
  const keyFile = values['release-pubkey'] ?? (env.MODGATE_BUILD_RELEASE_PUBKEY || undefined);
  return {
    arch: values.arch,
    outDir: values.out,
    ...(keyFile === undefined ? {} : { releasePublicKey: await readFile(keyFile, 'utf8') }),
    ...(values.version === undefined ? {} : { version: values.version }),
  };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const { binary, sha256 } = await buildBinary({
    ...(await optionsFromArgs(process.argv.slice(2), process.env)),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`built ${binary} in ${seconds} s\nsha256 ${sha256}\n`);
}
