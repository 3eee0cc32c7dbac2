/**
 * Where releases come from and how one is trusted, shared by `modgate self-update` and mirrored
 * by install.sh (scripts/install.sh): a release directory holds the artifacts, `SHA256SUMS` and
 * `SHA256SUMS.minisig`; the signature is checked with the release key built into this code, the
 * version is read from the signed trusted comment, and each artifact from its checksum line.
 * Layout (docs/operations.md, "Verifying a release by hand"): `<base>/latest/` and
 * `<base>/v<version>/`, base MODGATE_BASE_URL or RELEASE_BASE_URL.
 */
import { readFile } from 'node:fs/promises';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { parsePublicKey, verifyMinisign, type MinisignPublicKey } from './minisign.ts';

export const RELEASE_BASE_URL = 'https://releases.modgate.dev';
/**
 * Replaced by scripts/build.ts with the public key line given to `--release-pubkey` (or
 * MODGATE_BUILD_RELEASE_PUBKEY), a string, and with `undefined` when none is given: a build for
 * another key (a fork's, or a test's throwaway one) trusts that key alone. It is fixed when the
 * binary is built, never read at run time (docs/security.md, "Releases and self-update").
 */
declare const MODGATE_BUILD_RELEASE_PUBKEY: string | undefined;

/**
 * The project's release key (minisign), unless the build embedded another. A placeholder until
 * the maintainers' first signed release: they put their key's public line here
 * (docs/operations.md, "Verifying a release by hand").
 */
export const RELEASE_PUBLIC_KEY =
  typeof MODGATE_BUILD_RELEASE_PUBKEY === 'string'
    ? MODGATE_BUILD_RELEASE_PUBKEY
    : 'RWRURDfXjgm3ES6OPsJ624QBR+/Mp6uFSCg3b7ZZPHg4DJy19Ts0KLej';
export const SUMS_FILE = 'SHA256SUMS';
export const SIGNATURE_FILE = 'SHA256SUMS.minisig';

/** The trusted comment `npm run release` signs: `modgate <version> timestamp:<seconds> file:SHA256SUMS`. */
export function trustedComment(version: string, seconds: number): string {
  return `modgate ${version} timestamp:${seconds} file:${SUMS_FILE}`;
}

/**
 * The key releases are checked with. MODGATE_RELEASE_PUBKEY replaces it only when modgate runs
 * from a checkout (tests sign with a throwaway key); the single executable ignores it, so whoever
 * sets a root process's environment cannot make it trust their own release (docs/security.md,
 * "Releases and self-update").
 */
export function releaseKey(env: Readonly<Record<string, string | undefined>>): MinisignPublicKey {
  const override = env.MODGATE_RELEASE_PUBKEY;
  return parsePublicKey(
    override !== undefined && override !== '' && !isSea() ? override : RELEASE_PUBLIC_KEY,
  );
}

export function releaseBase(env: Readonly<Record<string, string | undefined>>): string {
  return (env.MODGATE_BASE_URL || RELEASE_BASE_URL).replace(/\/+$/, '');
}

/** The release directory: `latest/`, or `v<version>/` for a pinned version. */
export function releaseDir(base: string, version?: string): string {
  return `${base}/${version === undefined ? 'latest' : `v${version.replace(/^v/, '')}`}/`;
}

export interface SignedRelease {
  readonly dir: string;
  readonly version: string;
  /** File name → sha256 (hex), from the verified SHA256SUMS. */
  readonly sums: ReadonlyMap<string, string>;
}

/** Fetches and verifies a release directory's SHA256SUMS; throws SignatureError if it fails. */
export async function readSignedRelease(dir: string, key: MinisignPublicKey): Promise<SignedRelease> {
  const [sums, signature] = await Promise.all([
    fetchBytes(dir + SUMS_FILE),
    fetchBytes(dir + SIGNATURE_FILE),
  ]);
  const comment = verifyMinisign(sums, signature.toString('utf8'), key);
  const version = /^modgate (\S+) /.exec(comment)?.[1];
  if (version === undefined) throw new Error(`the release's trusted comment names no version: ${comment}`);
  return { dir, version, sums: parseSums(sums.toString('utf8')) };
}

/** sha256sum's format: `<64 hex>  <name>` (or ` *<name>` in binary mode), one a line. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) sums.set(match[2], match[1]);
  }
  return sums;
}

/** An https:// or file:// URL's bytes (file:// serves tests and local mirrors). */
export async function fetchBytes(url: string): Promise<Buffer> {
  if (url.startsWith('file:')) return readFile(fileURLToPath(url));
  const response = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(120_000) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}
