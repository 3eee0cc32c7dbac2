/**
 * Random text for identifiers and secrets, from the OS CSPRNG without modulo bias: a byte is used
 * only when it falls below the largest multiple of the alphabet's length, otherwise it is drawn
 * again, so every character of the alphabet is exactly equally likely.
 */
import { randomBytes } from 'node:crypto';

export const LOWER_ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomText(alphabet: string, length: number): string {
  if (alphabet.length < 2 || alphabet.length > 256)
    throw new RangeError('alphabet must have 2 to 256 characters');
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    // Draw a little more than needed so one round almost always suffices.
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.25) + 4)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}
