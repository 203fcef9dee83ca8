/**
 * Sharding: assignment of 10,000 clusters with 50,000 apps at 100 replicas per algorithm (target: all
 * three under 1 s together). Cold starts of `shards` are in startup.bench.ts.
 */
import { distribute, ALGORITHMS, type ShardCluster } from '../src/sharding/index.js';
import { seededRandom, randomUid } from '../test/support/random.js';
import { timeMs, type BenchRow } from './util.js';

export default async function (): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const rand = seededRandom(42);
  const clusters: ShardCluster[] = Array.from({ length: 10_000 }, (_, i) => ({
    id: randomUid(rand),
    server: `https://c${i}.example`,
    name: `c${i}`,
    apps: 0,
  }));
  for (let a = 0; a < 50_000; a++) clusters[Math.floor(rand() * clusters.length)]!.apps++;
  let total = 0;
  for (const algorithm of ALGORITHMS) {
    // Fresh process state matters for consistent-hashing's ring: the first call builds it (100,000 hashes).
    const { ms } = await timeMs(() => distribute(clusters, 100, algorithm));
    total += ms;
    rows.push({ name: `${algorithm}: 10,000 clusters, 50,000 apps, 100 replicas`, value: ms, unit: 'ms' });
  }
  rows.push({
    name: 'all three algorithms together',
    value: total,
    unit: 'ms',
    target: { value: 1000, better: 'lower' },
  });

  return rows;
}
