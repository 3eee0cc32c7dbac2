/**
 * mod-credentials.json: everything the game mod needs to dial this daemon: its own key pair, the
 * daemon's public key to pin, and the mod-link URL. `modgate init` writes it and trusts its key;
 * the operator copies it to the game server's mod config (docs/data-dir.md). Its type and schema
 * are protocol/mod-credentials.ts's, shared with the bridge.
 */
import { encodeKey, generateIdentity } from '../../protocol/keys.ts';
import { modCredentialsSchema, type ModCredentials } from '../../protocol/mod-credentials.ts';
import { formatHostPort, type HostPort } from '../host-port.ts';
import { DATA_FILES } from './data-dir-layout.ts';
import { defineDataFile } from './data-file.ts';

export type { ModCredentials };

export const DEFAULT_MOD_LINK_URL = 'ws://127.0.0.1:8788';

export const modCredentialsFile = defineDataFile<ModCredentials>({
  name: DATA_FILES.modCredentials,
  schema: modCredentialsSchema,
  serialize: (credentials) => ({
    mod_public_key: encodeKey(credentials.identity.publicKey),
    mod_secret_key: encodeKey(credentials.identity.secretKey),
    daemon_public_key: encodeKey(credentials.daemonPublicKey),
    url: credentials.url,
  }),
});

/** A fresh mod identity that pins `daemonPublicKey` and dials `url`. */
export function createModCredentials(
  daemonPublicKey: Uint8Array,
  url = DEFAULT_MOD_LINK_URL,
): ModCredentials {
  return { url, identity: generateIdentity(), daemonPublicKey };
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
