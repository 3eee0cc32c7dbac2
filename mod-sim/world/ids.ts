/**
 * Identifier formats (spec, Naming and Number handling 9). Every id that may exceed 2^53 is built
 * as a decimal string from random digits and never passes through a JS number.
 */
import { weightTable } from './rng.ts';
import type { Rng } from './rng.ts';

/** Platform ids: the fixed 7-digit prefix of the platform's id space plus 10 digits. */
export const PLATFORM_ID_PREFIX = '7656119';

export const PLATFORM_ID_PATTERN = /^\d{17}$/;
export const SOCIAL_ID_PATTERN = /^[1-9]\d{16,19}$/;
export const ENTITY_ID_PATTERN = /^[1-9]\d*$/;

/** Draws values until one is new to `taken`, which then holds it. */
function unique(taken: Set<string>, draw: () => string): string {
  for (;;) {
    const value = draw();
    if (!taken.has(value)) {
      taken.add(value);
      return value;
    }
  }
}

export function newPlatformId(rng: Rng, taken: Set<string>): string {
  return unique(taken, () => PLATFORM_ID_PREFIX + rng.digits(10));
}

const SOCIAL_ID_LENGTHS = weightTable([
  [17, 15],
  [18, 65],
  [19, 15],
  [20, 5],
]);

/** A social (chat) account id: 17 to 20 digits, mostly 18 like today's snowflakes. */
export function newSocialId(rng: Rng, taken: Set<string>): string {
  return unique(taken, () => rng.decimal(rng.weighted(SOCIAL_ID_LENGTHS)));
}

/**
 * An entity id for a vehicle or container. About one in five is 17 to 19 digits, so above 2^53
 * (9,007,199,254,740,992, 16 digits) and only representable as a string; the rest are 6 to 12
 * digits like a fresh server's.
 */
export function newEntityId(rng: Rng, taken: Set<string>): string {
  return unique(taken, () => rng.decimal(rng.chance(0.2) ? rng.int(17, 19) : rng.int(6, 12)));
}

/** A chat snowflake for a direct message's channel or message id. */
export function newSnowflake(rng: Rng): string {
  return rng.decimal(rng.int(18, 19));
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A claim code `XXXX-XXXX-XXXX` from an alphabet without look-alike characters. */
export function newClaimCode(rng: Rng, taken: Set<string>): string {
  return unique(taken, () => {
    let code = '';
    for (let i = 0; i < 12; i++) {
      if (i > 0 && i % 4 === 0) code += '-';
      code += CODE_ALPHABET[rng.int(0, CODE_ALPHABET.length - 1)];
    }
    return code;
  });
}

/** IPv4 from 100.64.0.0/10 (shared address space) or IPv6 from 2001:db8::/32: never routable. */
export function newIpAddress(rng: Rng): string {
  if (rng.chance(0.85)) {
    return `100.${rng.int(64, 127)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
  }
  const groups = Array.from({ length: 6 }, () => rng.int(0, 0xffff).toString(16));
  return `2001:db8:${groups.join(':')}`;
}
