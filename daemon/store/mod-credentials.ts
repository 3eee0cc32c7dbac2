/**
 * mod-credentials.json: everything the game mod needs to dial this daemon: its own key pair, the
 * daemon's public key to pin, and the mod-link URL. `modgate init` writes it and trusts its key;
 * the operator copies it to the game server's mod config (docs/data-dir.md).
 */
import * as z from 'zod';
import { encodeKey, generateIdentity } from '../../protocol/keys.ts';
import { formatHostPort, type HostPort } from '../host-port.ts';
import { DATA_FILES } from './data-dir-layout.ts';
import { defineDataFile, keyField } from './data-file.ts';

export const DEFAULT_MOD_LINK_URL = 'ws://127.0.0.1:8788';

export interface ModCredentials {
  readonly modPublicKey: Uint8Array;
  /** Raw 32-byte Ed25519 seed of the mod. */
  readonly modSecretKey: Uint8Array;
  readonly daemonPublicKey: Uint8Array;
  /** Where the mod dials the daemon's mod-link listener. */
  readonly url: string;
}

const modCredentialsSchema = z
  .object({
    mod_public_key: keyField,
    mod_secret_key: keyField,
    daemon_public_key: keyField,
    url: z.url({ protocol: /^wss?$/, error: 'expected a ws:// or wss:// URL' }),
  })
  .transform((file): ModCredentials => ({
    modPublicKey: file.mod_public_key,
    modSecretKey: file.mod_secret_key,
    daemonPublicKey: file.daemon_public_key,
    url: file.url,
  }));

export const modCredentialsFile = defineDataFile<ModCredentials>({
  name: DATA_FILES.modCredentials,
  schema: modCredentialsSchema,
  serialize: (credentials) => ({
    mod_public_key: encodeKey(credentials.modPublicKey),
    mod_secret_key: encodeKey(credentials.modSecretKey),
    daemon_public_key: encodeKey(credentials.daemonPublicKey),
    url: credentials.url,
  }),
});

/** A fresh mod identity that pins `daemonPublicKey` and dials `url`. */
export function createModCredentials(
  daemonPublicKey: Uint8Array,
  url = DEFAULT_MOD_LINK_URL,
): ModCredentials {
  const mod = generateIdentity();
  return {
    modPublicKey: mod.publicKey,
    modSecretKey: mod.secretKey,
    daemonPublicKey,
    url,
  };
}

/**
 * The url a mod dials for a mod-link listen address. A wildcard address (0.0.0.0, ::) is not
 * dialable: it becomes the loopback of its family, right for a mod on the same host; a mod on
 * another host needs this host's name in the url (docs/data-dir.md).
 */
export function modLinkUrl(listen: HostPort): string {
  const host = listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host === '::' ? '::1' : listen.host;
  return `ws://${formatHostPort({ host, port: listen.port })}`;
}
