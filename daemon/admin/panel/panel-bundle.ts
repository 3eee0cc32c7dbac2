/**
 * Builds the operator panel's browser files from `panel/` with esbuild: `panel.js` (Preact and
 * the pages, minified ES module) and `panel.css`. One function for both places that need them:
 * scripts/build.ts puts them into the single executable's assets, and panel-assets.ts builds
 * them in memory from a checkout (tsx, tests, `npm start`). The daemon's vocabulary the pages
 * show (scopes, event types and what each means, what each write route does, a key name's
 * limit, the moderation caps) is defined into the bundle here, and the one daemon rule it runs
 * before asking (an allowlist entry's canonical form) is aliased in as `modgate:allow-ip`, and the
 * roles' rule (which page a role sees, daemon/admin/roles.ts) as `modgate:roles`, so
 * `panel/` imports no daemon code by path. esbuild is a devDependency: it is loaded only when
 * this runs, never by the binary.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { EVENT_SUMMARIES, EVENT_TYPES } from '../../events/types.ts';
import { BAN_CAPS, MUTE_CAPS, MUTE_STEP_MINUTES } from '../../../protocol/ops/players.ts';
import { SCOPES } from '../../scopes.ts';
import { KEY_NAME_MAX_LENGTH } from '../../store/keys-file.ts';

/** The caps and the game's mute rounding the Players page shows before sending (PROTOCOL §6.6). */
const MODERATION_RULES = { banCaps: BAN_CAPS, muteCaps: MUTE_CAPS, muteStepMinutes: MUTE_STEP_MINUTES };

/** The whole panel, gzipped, stays under this (docs/admin.md, "The panel"); the build checks it. */
export const PANEL_GZIP_BUDGET = 150 * 1024;

/** The files a bundle holds, by their URL path on the admin listener. */
export const PANEL_FILES = ['/panel.js', '/panel.css'] as const;
export type PanelFileName = (typeof PANEL_FILES)[number];

export type PanelBundle = Record<PanelFileName, Buffer>;

const PANEL_DIR = fileURLToPath(new URL('../../../panel/', import.meta.url));

/** The daemon's allowlist rule, so the key form shows what an entry will be saved as. */
const ALLOW_IP = fileURLToPath(new URL('../../store/allow-ip.ts', import.meta.url));

/** The roles and what each may call, so the navigation shows a page to the roles its route allows. */
const ROLES = fileURLToPath(new URL('../roles.ts', import.meta.url));

/** `bundled`, when given, is filled with the absolute path of every source file the bundle carries. */
export async function buildPanelBundle(
  writeRoutes: readonly WriteRouteSummary[],
  bundled?: Set<string>,
): Promise<PanelBundle> {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: PANEL_DIR,
    entryPoints: { panel: 'main.ts', 'panel-style': 'panel.css' },
    outdir: 'out',
    write: false,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    define: {
      MODGATE_SCOPES: JSON.stringify(SCOPES),
      MODGATE_EVENT_TYPES: JSON.stringify(EVENT_TYPES),
      MODGATE_KEY_NAME_MAX_LENGTH: JSON.stringify(KEY_NAME_MAX_LENGTH),
      MODGATE_EVENT_SUMMARIES: JSON.stringify(EVENT_SUMMARIES),
      MODGATE_MODERATION: JSON.stringify(MODERATION_RULES),
      MODGATE_WRITE_ROUTES: JSON.stringify(writeRoutes),
    },
    alias: { 'modgate:allow-ip': ALLOW_IP, 'modgate:roles': ROLES },
    metafile: bundled !== undefined,
  });
  for (const input of Object.keys(result.metafile?.inputs ?? {})) bundled?.add(resolve(PANEL_DIR, input));
  const find = (suffix: string) => {
    const file = result.outputFiles.find((output) => output.path.endsWith(suffix));
    if (file === undefined) throw new Error(`the panel build wrote no ${suffix}`);
    return Buffer.from(file.contents);
  };
  const bundle: PanelBundle = { '/panel.js': find('/panel.js'), '/panel.css': find('/panel-style.css') };
  checkBudget(bundle);
  return bundle;
}

/** A write route as the Audit page names it: what an audit line did, in the route's words. */
export interface WriteRouteSummary {
  method: string;
  path: string;
  summary: string;
}

/**
 * The writes of `routes` (the audit log records every one), given by the caller, which holds the
 * route tables: the admin routes import the panel's gate, which imports this file.
 */
export function writeRouteSummaries(
  routes: readonly { method: string; path: string; summary: string }[],
): WriteRouteSummary[] {
  return routes
    .filter((route) => route.method !== 'GET')
    .map(({ method, path, summary }) => ({ method, path, summary }));
}

/** Gzipped bytes of the whole panel (what a browser downloads). */
export function panelGzipSize(bundle: PanelBundle): number {
  return PANEL_FILES.reduce((sum, name) => sum + gzipSync(bundle[name]).length, 0);
}

function checkBudget(bundle: PanelBundle): void {
  const size = panelGzipSize(bundle);
  if (size > PANEL_GZIP_BUDGET) {
    throw new Error(`the panel is ${size} bytes gzipped, over its budget of ${PANEL_GZIP_BUDGET}`);
  }
}
