/** The two hash functions Argo CD's sharding uses (spec 3.1 and 3.3). */
import { createHash } from 'node:crypto';

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a, 32-bit, over the UTF-8 bytes of `text`; returns the unsigned value. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    // Math.imul keeps the multiplication exact modulo 2^32.
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** BLAKE2b-512 (unkeyed) of the UTF-8 bytes, first 8 bytes of the digest read as little-endian uint64. */
export function blake2bUint64(text: string): bigint {
  return createHash('blake2b512').update(text, 'utf8').digest().readBigUInt64LE(0);
}
