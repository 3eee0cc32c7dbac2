/**
 * Reads `mod-credentials.json`, the file `modgate init` writes for the game mod (docs/bridge.md):
 * the mod's key pair, the daemon key to pin, and the mod-link URL, as ModBridgeOptions want them.
 */
import { readFile } from 'node:fs/promises';
import { decodeKey, type KeyPair } from '../protocol/keys.ts';

export interface ModCredentials {
  /** The daemon's mod-link address, e.g. `ws://127.0.0.1:8788`. */
  url: string;
  identity: KeyPair;
  daemonPublicKey: Uint8Array;
}

/** Parses the file's JSON text; throws TypeError naming the first field that is wrong. */
export function parseModCredentials(text: string): ModCredentials {
  const file = JSON.parse(text) as Record<string, unknown>;
  const key = (field: string) => {
    const value = file[field];
    if (typeof value !== 'string') throw new TypeError(`mod credentials: ${field} is missing`);
    try {
      return decodeKey(value);
    } catch (error) {
      throw new TypeError(`mod credentials: ${field}: ${(error as Error).message}`, { cause: error });
    }
  };
  const url = file['url'];
  if (typeof url !== 'string' || !/^wss?:\/\//.test(url)) {
    throw new TypeError('mod credentials: url must be a ws:// or wss:// URL');
  }
  return {
    url,
    identity: { publicKey: key('mod_public_key'), secretKey: key('mod_secret_key') },
    daemonPublicKey: key('daemon_public_key'),
  };
}

/** Reads and parses `mod-credentials.json` at `path`. */
export async function readModCredentials(path: string): Promise<ModCredentials> {
  return parseModCredentials(await readFile(path, 'utf8'));
}
