/** Seeded randomness for property tests (the seed is in test names): the PRNG of src/util, plus UIDs. */
export { seededRandom } from '../../src/util/random.js';

/** A random Kubernetes-style UID (8-4-4-4-12 lowercase hex). */
export function randomUid(rand: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(rand() * 4)]}${hex(3)}-${hex(12)}`;
}
