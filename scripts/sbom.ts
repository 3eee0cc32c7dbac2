/**
 * The release's `sbom.cdx.json`: a CycloneDX 1.5 JSON document of what the single executable
 * bundles, the npm packages esbuild put in its bundles (their files are the build's metafile
 * inputs, scripts/build.ts) and the Node.js it embeds, each with its version, purl, license and
 * the sha512 package-lock.json pins. Written by hand rather than with @cyclonedx/cyclonedx-library:
 * the document is one flat list of components, and the library would be a new dependency for it.
 * No timestamp or serial number, so the same source gives the same bytes (the build is reproducible).
 */
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';

export interface SbomInput {
  /** Repository root: package-lock.json and node_modules/ are here. */
  readonly root: string;
  readonly version: string;
  /** Absolute paths of the bundled source files (BuildOptions.bundled). */
  readonly bundled: Iterable<string>;
  /** The embedded Node.js of each architecture released: scripts/embedded-node.json's pins. */
  readonly nodes?: readonly { package: string; version: string; integrity: string }[];
}

interface LockEntry {
  version?: string;
  integrity?: string;
  license?: string;
}

/** `node_modules/a/node_modules/@s/b/lib/x.js` → `node_modules/a/node_modules/@s/b`. */
export function packageDirOf(path: string): string | undefined {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path);
  return match?.[1];
}

export async function cyclonedxSbom(input: SbomInput): Promise<Record<string, unknown>> {
  const lock = JSON.parse(await readFile(join(input.root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const dirs = new Set<string>();
  for (const file of input.bundled) {
    // From the first node_modules/ on, as package-lock.json names it: node_modules may be a link
    // to another checkout's, and esbuild reports the files where they really are.
    const path = file.split(sep).join('/');
    const start = path.indexOf('/node_modules/');
    const dir = start === -1 ? undefined : packageDirOf(path.slice(start + 1));
    if (dir !== undefined) dirs.add(dir);
  }
  const components = [...dirs].map((dir) => {
    const entry = lock.packages[dir];
    if (entry?.version === undefined) throw new Error(`${dir} is bundled but not in package-lock.json`);
    return component(dir.slice(dir.lastIndexOf('node_modules/') + 'node_modules/'.length), entry);
  });
  for (const node of input.nodes ?? []) {
    components.push(
      component(node.package, { version: node.version, integrity: node.integrity, license: 'MIT' }),
    );
  }
  const unique = new Map(components.map((c) => [c['bom-ref'], c]));
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      component: {
        type: 'application',
        'bom-ref': `pkg:generic/modgate@${input.version}`,
        name: 'modgate',
        version: input.version,
      },
    },
    components: [...unique.values()].sort((a, b) => String(a['bom-ref']).localeCompare(String(b['bom-ref']))),
  };
}

function component(name: string, entry: LockEntry): Record<string, unknown> {
  const purl = `pkg:npm/${name.startsWith('@') ? `%40${name.slice(1)}` : name}@${entry.version}`;
  const [alg, digest] = (entry.integrity ?? '').split('-', 2);
  return {
    type: 'library',
    'bom-ref': purl,
    name,
    version: entry.version,
    purl,
    ...(entry.license ? { licenses: [licenseOf(entry.license)] } : {}),
    ...(alg === 'sha512' && digest
      ? { hashes: [{ alg: 'SHA-512', content: Buffer.from(digest, 'base64').toString('hex') }] }
      : {}),
  };
}

/** An SPDX id as `license.id`; an expression (`MIT OR Apache-2.0`) as `expression`. */
function licenseOf(license: string): Record<string, unknown> {
  return /\s(?:OR|AND|WITH)\s|[()]/.test(license) ? { expression: license } : { license: { id: license } };
}
