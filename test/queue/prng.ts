/** Seeded randomness for the queue property tests (the PRNG itself is the shared one in test/support). */
export { seededRandom as mulberry32 } from '../support/random.js';

/** Lets other async work run: a random mix of microtask and macrotask turns. */
export async function yieldRandomly(rand: () => number, max = 3): Promise<void> {
  const n = Math.floor(rand() * (max + 1));
  for (let i = 0; i < n; i++) {
    if (rand() < 0.5) await Promise.resolve();
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
