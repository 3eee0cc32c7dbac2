/**
 * The daemon's view of the data dir: everything it needs from the files, loaded together and
 * never mutated. The request pipeline reads one snapshot per request; a reload swaps it whole.
 */
import { assertDataDirReady } from './data-dir.ts';
import { readDataFile } from './data-file.ts';
import { identityFile, type Identity } from './identity.ts';
import { indexById, keysFile, type ApiKeyRecord } from './keys-file.ts';
import { modKeysFile } from './mod-keys.ts';
import { stateFile, type State } from './state.ts';

export interface Snapshot {
  readonly identity: Identity;
  readonly state: State;
  readonly keysById: ReadonlyMap<string, ApiKeyRecord>;
  /** Raw 32-byte Ed25519 public keys of the mods allowed to connect. */
  readonly trustedModKeys: readonly Uint8Array[];
  readonly loadedAt: Date;
}

/** The files a snapshot is built from (mod-credentials.json is for the mod, not the daemon). */
export const SNAPSHOT_FILES = [identityFile.name, stateFile.name, keysFile.name, modKeysFile.name] as const;

/** Loads a snapshot; throws a StoreError naming the file when one is missing, broken or loose. */
export async function loadSnapshot(dir: string, now: Date = new Date()): Promise<Snapshot> {
  await assertDataDirReady(dir);
  const [identity, state, keys, modKeys] = await Promise.all([
    readDataFile(dir, identityFile),
    readDataFile(dir, stateFile),
    readDataFile(dir, keysFile),
    readDataFile(dir, modKeysFile),
  ]);
  return {
    identity,
    state,
    keysById: indexById(keys),
    trustedModKeys: modKeys.trusted.map((entry) => entry.publicKey),
    loadedAt: now,
  };
}
