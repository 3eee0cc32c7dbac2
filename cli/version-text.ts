/**
 * `modgate --version`: `modgate VERSION` on the first line, then the mod-link protocol versions
 * this build speaks and the Node.js runtime that runs it. Its own module, light on imports, so
 * main.ts can answer `--version` without loading the program.
 */
import { isSea } from 'node:sea';
import packageJson from '../package.json' with { type: 'json' };
import { SUPPORTED_VERSIONS } from '../protocol/handshake-messages.ts';

export function versionText(): string {
  const runtime = isSea() ? 'embedded, single executable' : process.execPath;
  return [
    `modgate ${packageJson.version}`,
    `mod-link protocol ${SUPPORTED_VERSIONS.join(', ')}`,
    `node ${process.version} (${runtime})`,
  ].join('\n');
}

/** `modgate --version` (or `-V`) and nothing else: answered without loading the program. */
export function isVersionQuery(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
}
