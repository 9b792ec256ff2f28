import { randomBytes } from 'node:crypto';

/** Type prefixes of design.md §4. */
export type IdPrefix =
  | 'org'
  | 'mem'
  | 'proj'
  | 'inv'
  | 'key'
  | 'aud'
  | 'op'
  | 'appr'
  | 'lst'
  | 'hist'
  | 'ses'
  | 'sil'
  | 'pk'
  | 'wch'
  | 'job'
  | 'evt'
  | 'wh'
  | 'whd'
  | 'med'
  | 'mhist'
  | 'rnh';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * An opaque id: prefix, underscore, 26 base32 characters of 128 random bits. 128 bits make every
 * id unguessable, which the invite link needs (design.md §4) and costs nothing elsewhere.
 * Lower-case digits and letters sort the same under every collation, so both databases order
 * ties identically.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base32(randomBytes(16))}`;
}

export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}
