import { randomFillSync } from 'node:crypto';

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
  | 'areq'
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
  | 'rnh'
  | 'pth'
  | 'dth'
  | 'sch';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * An opaque id: prefix, underscore, 26 base32 characters of 128 random bits. 128 bits make every
 * id unguessable, which the invite link needs (design.md §4) and costs nothing elsewhere.
 * Lower-case digits and letters sort the same under every collation, so both databases order
 * ties identically.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base32(randomId())}`;
}

/**
 * Random bytes are drawn 4 KiB at a time, 256 ids' worth: a call into OpenSSL costs about 4 µs
 * whatever its size (20 under load: two draws were 5 % of a listing edit's CPU). Node's own
 * crypto.randomUUID keeps such a cache; the bytes are as random, handed out once each.
 */
const POOL_BYTES = 4096;
const ID_BYTES = 16;
const pool = Buffer.alloc(POOL_BYTES);
let taken = POOL_BYTES;

function randomId(): Uint8Array {
  if (taken === POOL_BYTES) {
    randomFillSync(pool);
    taken = 0;
  }
  taken += ID_BYTES;
  return pool.subarray(taken - ID_BYTES, taken);
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
