/**
 * mod-credentials.json, the file `modgate init` writes for the game mod: the mod's key pair, the
 * daemon key to pin, and the mod-link URL, in the shape ModBridgeOptions want them. One type and
 * one schema for every reader: the daemon's data dir (daemon/store/mod-credentials.ts) and the
 * bridge (bridge/credentials.ts), which turns the schema's first issue into its own TypeError.
 */
import * as z from 'zod';
import { decodeKey, type KeyPair } from './keys.ts';

export interface ModCredentials {
  /** The daemon's mod-link address, e.g. `ws://127.0.0.1:8788`. */
  readonly url: string;
  /** The mod's Ed25519 key pair (the secret is the raw 32-byte seed). */
  readonly identity: KeyPair;
  readonly daemonPublicKey: Uint8Array;
}

/**
 * A raw 32-byte key stored as standard base64, decoded to bytes. The issue keeps decodeKey's own message in
 * `params.reason` for the bridge's error, which names it.
 */
export const keyField = z.string().transform((text, ctx) => {
  try {
    return decodeKey(text);
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected a base64-encoded 32-byte key',
      params: { reason: (error as Error).message },
    });
    return z.NEVER;
  }
});

export const modCredentialsSchema = z
  .object({
    mod_public_key: keyField,
    mod_secret_key: keyField,
    daemon_public_key: keyField,
    url: z.url({ protocol: /^wss?$/, error: 'expected a ws:// or wss:// URL' }),
  })
  .transform((file): ModCredentials => ({
    url: file.url,
    identity: { publicKey: file.mod_public_key, secretKey: file.mod_secret_key },
    daemonPublicKey: file.daemon_public_key,
  }));

/** The order the bridge reports fields in: the first wrong one of these is named. */
const FIELD_ORDER = ['url', 'mod_public_key', 'mod_secret_key', 'daemon_public_key'];

/** Parses the file's JSON text; throws TypeError naming the first field that is wrong. */
export function parseModCredentials(text: string): ModCredentials {
  const result = modCredentialsSchema.safeParse(JSON.parse(text), { jitless: true });
  if (result.success) return result.data;
  throw new TypeError(`mod credentials: ${describeIssue(firstIssue(result.error.issues))}`);
}

function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  // A root issue (not an object) ranks -1, before every field.
  const rank = (issue: z.core.$ZodIssue) => FIELD_ORDER.indexOf(String(issue.path[0]));
  return [...issues].sort((a, b) => rank(a) - rank(b))[0];
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  const field = issue?.path[0];
  if (issue === undefined || typeof field !== 'string') return 'expected a JSON object';
  if (field === 'url') return 'url must be a ws:// or wss:// URL';
  if (issue.code === 'invalid_type') return `${field} is missing`;
  const reason = issue.code === 'custom' ? (issue.params?.['reason'] as string | undefined) : undefined;
  return `${field}: ${reason ?? issue.message}`;
}
