/**
 * What every esbuild bundle of the CLI leaves out or swaps: the single executable's
 * (scripts/build.ts) and the test suite's (test/support/cli-bundle.ts), so the two bundle the same
 * program. A module of its own so that taking these needs none of the build's imports.
 */

/** Loaded by their packages inside try/catch; the JavaScript fallbacks are what the binary runs. */
export const OPTIONAL_NATIVE: readonly string[] = ['msgpackr-extract', 'utf-8-validate'];
/**
 * Modules the bundles take in place of a package's: ws loads the optional native `bufferutil` for
 * its masking, and the executable, which cannot load an addon, gets the same API in JavaScript
 * a word at a time (protocol/ws-masking.ts) instead of ws's byte-by-byte fallback.
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = { bufferutil: './protocol/ws-masking.ts' };
/**
 * Loaded only from a checkout, to build the panel in memory (daemon/admin/panel/panel-assets.ts);
 * the executable serves the panel from its assets instead.
 */
export const CHECKOUT_ONLY: readonly string[] = ['esbuild'];
