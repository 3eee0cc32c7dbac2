/**
 * key-usage.json: when and from where each API key last authenticated on /v1 (docs/data-dir.md,
 * "key-usage.json"). A file of its own, written by the daemon (key-usage-recorder.ts), so the
 * daemon never rewrites the operator's keys.json; absent until a key is first used.
 */
import * as z from 'zod';
import { RECORD_FILES } from './data-dir-layout.ts';
import { dateField, defineDataFile } from './data-file.ts';
import { API_KEY_ID_PATTERN } from './keys-file.ts';

export interface KeyUse {
  readonly at: Date;
  /** The client address after trusted proxies, as the allowlist saw it. */
  readonly ip: string;
}

/** Last use by key id; a key never used has no entry. */
export type KeyUsage = ReadonlyMap<string, KeyUse>;

/** Longer than any IPv6 text with a zone; an address is never near it. */
const MAX_IP_LENGTH = 100;

const usageSchema = z
  .object({
    keys: z.record(
      z.string().regex(API_KEY_ID_PATTERN, 'expected a key id'),
      z.object({ last_used_at: dateField, last_used_ip: z.string().min(1).max(MAX_IP_LENGTH) }),
    ),
  })
  .transform(
    (file): KeyUsage =>
      new Map(
        Object.entries(file.keys).map(([id, use]) => [id, { at: use.last_used_at, ip: use.last_used_ip }]),
      ),
  );

export const keyUsageFile = defineDataFile<KeyUsage>({
  name: RECORD_FILES.keyUsage,
  schema: usageSchema,
  serialize: (usage) => ({
    keys: Object.fromEntries(
      [...usage].map(([id, use]) => [id, { last_used_at: use.at.toISOString(), last_used_ip: use.ip }]),
    ),
  }),
  whenMissing: new Map(),
});

/** The later of two uses of each key: what a flush writes over what the file holds. */
export function mergeUsage(stored: KeyUsage, recent: KeyUsage): KeyUsage {
  const merged = new Map(stored);
  for (const [id, use] of recent) {
    const known = merged.get(id);
    if (known === undefined || known.at.getTime() <= use.at.getTime()) merged.set(id, use);
  }
  return merged;
}
