/**
 * Secrets an admin answer shows once (a new API key's text, docs/admin.md "API keys") never
 * reach the disk: the copy of the answer the idempotency journal keeps for an Idempotency-Key
 * replay has those fields set to null. A replay therefore says what was made (the key's id and
 * record), and no second one is made, but not the secret; the holder of a lost answer rolls the
 * key for a new one. Without this, idempotency.jsonl would hold key text for a day, where
 * keys.json holds only hashes.
 */
import { bodyText, type ApiResponse } from '../http/types.ts';

/** `response` with each of `fields` (top-level JSON fields of its body) set to null. */
export function withoutShownOnce(response: ApiResponse, fields: readonly string[]): ApiResponse {
  if (response.status >= 300 || response.body === null) return response;
  const body = JSON.parse(bodyText(response.body)) as Record<string, unknown>;
  for (const field of fields) if (field in body) body[field] = null;
  return { ...response, body: Buffer.from(JSON.stringify(body)) };
}
