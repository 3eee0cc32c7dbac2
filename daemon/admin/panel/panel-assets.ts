/**
 * The operator panel's files on the admin TCP listener (never on admin.sock or the /v1
 * listener): `/` and `/login` answer the one HTML page, `/panel.js` and `/panel.css` the bundle,
 * `/favicon.ico` the panel's icon (an SVG: every browser the panel supports shows one, and a
 * browser asks for that path on every load, which would otherwise be a 404).
 * Every answer carries the panel's security headers (PANEL_SECURITY_HEADERS).
 *
 * Where the bundle comes from: the single executable carries it as two assets (scripts/build.ts);
 * from a checkout it is built by esbuild in memory (panel-bundle.ts). Either way it is loaded at
 * the first request for a panel file, not at start-up, so `serve` without a browser pays nothing
 * (a checkout's first page load pays the ~0.1 s build once).
 */
import { createHash } from 'node:crypto';
import { getRawAsset, isSea } from 'node:sea';
import { gzipSync } from 'node:zlib';
import type { ApiRequest, ApiResponse } from '../../http/types.ts';
import {
  buildPanelBundle,
  PANEL_FILES,
  type PanelBundle,
  type PanelFileName,
  type WriteRouteSummary,
} from './panel-bundle.ts';

/**
 * Strict CSP: scripts and styles from the panel's own origin only (no inline script or style,
 * no eval), no framing (clickjacking), no plugins, no <base> or form posts elsewhere.
 */
export const PANEL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers on every panel answer, the admin API's included (docs/admin.md, "The panel"). */
export const PANEL_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PANEL_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** The one page: the script and style by URL, so the CSP needs no hash or nonce. */
const INDEX_HTML = Buffer.from(
  [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>modgate</title>',
    '<link rel="icon" type="image/svg+xml" href="/favicon.ico">',
    '<link rel="stylesheet" href="/panel.css">',
    '<script type="module" src="/panel.js"></script>',
    '</head><body><div id="app"><noscript>The modgate panel needs JavaScript.</noscript></div></body></html>',
    '',
  ].join('\n'),
);

/** The icon: a rounded square with an "m", in the panel's accent colour. */
const FAVICON_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect width="32" height="32" rx="7" fill="#2456c7"/>' +
    '<path d="M8 23V12h3v1.5c.8-1.1 1.9-1.7 3.2-1.7 1.4 0 2.4.6 3 1.8.9-1.2 2.1-1.8 3.5-1.8 ' +
    '2.2 0 3.3 1.4 3.3 4.1V23h-3v-6.6c0-1.3-.5-1.9-1.5-1.9s-1.6.7-1.6 2V23h-3v-6.6c0-1.3-.5-1.9' +
    '-1.5-1.9s-1.6.7-1.6 2V23z" fill="#fff"/></svg>\n',
);
const FAVICON_PATH = '/favicon.ico';

/** The URL paths that answer the page; the page picks its view from the hash. */
const PAGE_PATHS = new Set(['/', '/login']);

interface PanelFile {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

const TYPES: Record<PanelFileName | 'page' | typeof FAVICON_PATH, string> = {
  page: 'text/html; charset=utf-8',
  [FAVICON_PATH]: 'image/svg+xml',
  '/panel.js': 'text/javascript; charset=utf-8',
  '/panel.css': 'text/css; charset=utf-8',
};

export type PanelBundleSource = () => Promise<PanelBundle>;

export class PanelAssets {
  #source: PanelBundleSource;
  #files: Promise<Map<string, PanelFile>> | undefined;

  constructor(source: PanelBundleSource) {
    this.#source = source;
  }

  /** Whether `pathname` is one of the panel's files (the router asks before anything else). */
  static serves(method: string, pathname: string): boolean {
    return (
      (method === 'GET' || method === 'HEAD') &&
      (PAGE_PATHS.has(pathname) || pathname === FAVICON_PATH || isPanelFile(pathname))
    );
  }

  async answer(request: ApiRequest, pathname: string): Promise<ApiResponse> {
    const file = (await this.#load()).get(PAGE_PATHS.has(pathname) ? 'page' : pathname);
    if (file === undefined) throw new Error(`not a panel file: ${pathname}`);
    const headers: Record<string, string> = {
      ...PANEL_SECURITY_HEADERS,
      'content-type': file.type,
      'cache-control': 'no-cache',
      etag: file.etag,
      vary: 'accept-encoding',
    };
    if (request.headers['if-none-match'] === file.etag) return { status: 304, headers, body: null };
    const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
    if (gzip) headers['content-encoding'] = 'gzip';
    const body = gzip ? file.gzip : file.body;
    return { status: 200, headers, body: request.method === 'HEAD' ? null : body };
  }

  #load(): Promise<Map<string, PanelFile>> {
    if (this.#files === undefined) {
      const files = this.#source().then(indexFiles);
      // A failed build is tried again at the next request rather than kept.
      files.catch(() => (this.#files = undefined));
      this.#files = files;
    }
    return this.#files;
  }
}

function isPanelFile(pathname: string): pathname is PanelFileName {
  return (PANEL_FILES as readonly string[]).includes(pathname);
}

function indexFiles(bundle: PanelBundle): Map<string, PanelFile> {
  const files = new Map<string, PanelFile>([
    ['page', fileOf(TYPES.page, INDEX_HTML)],
    [FAVICON_PATH, fileOf(TYPES[FAVICON_PATH], FAVICON_SVG)],
  ]);
  for (const name of PANEL_FILES) files.set(name, fileOf(TYPES[name], bundle[name]));
  return files;
}

function fileOf(type: string, body: Buffer): PanelFile {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { type, body, gzip: gzipSync(body), etag };
}

/**
 * The executable's assets when running as the single executable, else an in-memory build.
 * node:sea is imported statically: the executable runs its bundle as a vm Script, which has no
 * dynamic import().
 */
export function panelSource(writeRoutes: readonly WriteRouteSummary[]): PanelBundleSource {
  return () => panelBundle(writeRoutes);
}

async function panelBundle(writeRoutes: readonly WriteRouteSummary[]): Promise<PanelBundle> {
  if (!isSea()) return buildPanelBundle(writeRoutes);
  const asset = (name: PanelFileName) => Buffer.from(getRawAsset(name.slice(1)) as ArrayBuffer);
  return { '/panel.js': asset('/panel.js'), '/panel.css': asset('/panel.css') };
}
