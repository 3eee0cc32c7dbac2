/**
 * identity.json: who this daemon is. The server id names the server in logs and the API; the
 * daemon's Ed25519 key pair is what the mod pins in the handshake (PROTOCOL §3.1).
 */
import * as z from 'zod';
import { encodeKey, generateIdentity } from '../../protocol/keys.ts';
import { DATA_FILES } from './data-dir-layout.ts';
import { dateField, defineDataFile, keyField } from './data-file.ts';
import { LOWER_ALPHANUMERIC, randomText } from './random-text.ts';

export interface ServerIdentity {
  readonly serverId: string;
  /** A human name for the server, shown by the CLI; null until `init --name` sets one. */
  readonly name: string | null;
  /** Raw 32-byte Ed25519 public key. */
  readonly daemonPublicKey: Uint8Array;
  /** Raw 32-byte Ed25519 seed. */
  readonly daemonSecretKey: Uint8Array;
  readonly createdAt: Date;
}

export const SERVER_ID_PATTERN = /^srv_[a-z0-9]{16}$/;
export const SERVER_NAME_MAX_LENGTH = 100;

const identitySchema = z
  .object({
    version: z.literal(1),
    server_id: z.string().regex(SERVER_ID_PATTERN, 'expected srv_ followed by 16 characters a-z0-9'),
    name: z.string().min(1).max(SERVER_NAME_MAX_LENGTH).nullable(),
    daemon_public_key: keyField,
    daemon_secret_key: keyField,
    created_at: dateField,
  })
  .transform((file): ServerIdentity => ({
    serverId: file.server_id,
    name: file.name,
    daemonPublicKey: file.daemon_public_key,
    daemonSecretKey: file.daemon_secret_key,
    createdAt: file.created_at,
  }));

export const identityFile = defineDataFile<ServerIdentity>({
  name: DATA_FILES.identity,
  schema: identitySchema,
  serialize: (identity) => ({
    version: 1,
    server_id: identity.serverId,
    name: identity.name,
    daemon_public_key: encodeKey(identity.daemonPublicKey),
    daemon_secret_key: encodeKey(identity.daemonSecretKey),
    created_at: identity.createdAt.toISOString(),
  }),
});

export function createIdentity(name: string | null, now: Date): ServerIdentity {
  const keys = generateIdentity();
  return {
    serverId: `srv_${randomText(LOWER_ALPHANUMERIC, 16)}`,
    name,
    daemonPublicKey: keys.publicKey,
    daemonSecretKey: keys.secretKey,
    createdAt: now,
  };
}
