/**
 * The reference bridge (protocol/bridge.ts) as the mod, dialling a daemon with the data dir's own
 * mod credentials: for tests whose mod answers or misbehaves as the test writes it.
 */
import { readFromDataDir } from '../daemon/store/data-dir-access.ts';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { startModBridge, type ModBridge, type ModBridgeOptions } from '../protocol/bridge.ts';

export type BridgeModOptions = Partial<Omit<ModBridgeOptions, 'url' | 'identity' | 'daemonPublicKey'>>;

/** A bridge on `url` (`ws://127.0.0.1:PORT`) as mod version 2.1.0 with no handlers unless told. */
export async function startBridgeMod(
  dataDir: string,
  url: string,
  options: BridgeModOptions = {},
): Promise<ModBridge> {
  const credentials = await readFromDataDir(dataDir, modCredentialsFile);
  return startModBridge({
    url,
    identity: { publicKey: credentials.modPublicKey, secretKey: credentials.modSecretKey },
    daemonPublicKey: credentials.daemonPublicKey,
    modVersion: '2.1.0',
    handlers: {},
    ...options,
  });
}
