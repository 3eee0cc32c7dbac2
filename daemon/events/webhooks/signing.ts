/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, "Signature scheme"): the secret
 * is `whsec_` + base64 of 24 to 64 random bytes; the signature is
 * `v1,` + base64(HMAC-SHA256(key = base64-decoded secret, `${id}.${timestamp}.${body}`)),
 * sent with `webhook-id` (the same on every retry of one message, so receivers can dedupe) and
 * `webhook-timestamp` (integer seconds of this attempt, so receivers can refuse replays).
 * While a rotated secret's overlap runs, the header carries one signature per secret, space
 * separated, the new secret's first ("Signature scheme": a receiver accepts the message when any
 * one of them verifies), so a receiver holding either secret accepts it (docs/events.md).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Bytes of randomness in a secret we generate; the specification allows 24 to 64. */
export const SECRET_BYTES = 32;
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The HMAC key: the bytes after `whsec_`. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs with every secret given (the current one, then those still in their overlap). */
export function signatureHeaders(
  secrets: string | readonly string[],
  messageId: string,
  timestampSec: number,
  body: Buffer,
): SignatureHeaders {
  const signatures = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => {
    const mac = createHmac('sha256', secretKey(secret))
      .update(`${messageId}.${timestampSec}.`)
      .update(body)
      .digest('base64');
    return `v1,${mac}`;
  });
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': signatures.join(' '),
  };
}
