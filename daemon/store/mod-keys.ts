/**
 * mod-keys.json: the mod identities the daemon pins. A mod whose handshake proves a key not in
 * this list is refused (PROTOCOL §3.1).
 */
import * as z from 'zod';
import { encodeKey, keysEqual } from '../../protocol/keys.ts';
import { DATA_FILES } from './data-dir-layout.ts';
import { dateField, defineDataFile, keyField } from './data-file.ts';

export interface TrustedModKey {
  /** Raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  readonly label: string;
  readonly addedAt: Date;
}

export interface ModKeys {
  readonly trusted: readonly TrustedModKey[];
}

const modKeysSchema = z
  .object({
    trusted: z.array(
      z.object({
        public_key: keyField,
        label: z.string().max(200),
        added_at: dateField,
      }),
    ),
  })
  .transform((file): ModKeys => ({
    trusted: file.trusted.map((entry) => ({
      publicKey: entry.public_key,
      label: entry.label,
      addedAt: entry.added_at,
    })),
  }));

export const modKeysFile = defineDataFile<ModKeys>({
  name: DATA_FILES.modKeys,
  schema: modKeysSchema,
  serialize: (keys) => ({
    trusted: keys.trusted.map((entry) => ({
      public_key: encodeKey(entry.publicKey),
      label: entry.label,
      added_at: entry.addedAt.toISOString(),
    })),
  }),
});

export function isTrusted(keys: ModKeys, publicKey: Uint8Array): boolean {
  return keys.trusted.some((entry) => keysEqual(entry.publicKey, publicKey));
}

/** Adds `publicKey` unless it is already trusted. */
export function trustModKey(keys: ModKeys, publicKey: Uint8Array, label: string, now: Date): ModKeys {
  if (isTrusted(keys, publicKey)) return keys;
  return { trusted: [...keys.trusted, { publicKey, label, addedAt: now }] };
}
