/**
 * Reads `mod-credentials.json`, the file `modgate init` writes for the game mod (docs/bridge.md):
 * the mod's key pair, the daemon key to pin, and the mod-link URL, as ModBridgeOptions want them.
 * The type and the parser are protocol/mod-credentials.ts's, the ones the daemon reads it with.
 */
import { readFile } from 'node:fs/promises';
import { parseModCredentials, type ModCredentials } from '../protocol/mod-credentials.ts';

export { parseModCredentials, type ModCredentials };

/** Reads and parses `mod-credentials.json` at `path`. */
export async function readModCredentials(path: string): Promise<ModCredentials> {
  return parseModCredentials(await readFile(path, 'utf8'));
}
