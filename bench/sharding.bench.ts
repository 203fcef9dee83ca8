/**
 * Sharding: assignment of 10,000 clusters with 50,000 apps at 100 replicas per algorithm (target: all
 * three under 1 s together), and cold start of the built CLI (target: under 400 ms each).
 */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distribute, ALGORITHMS, type ShardCluster } from '../src/sharding/index.js';
import { seededRandom, randomUid } from '../test/support/random.js';
import { launcher } from '../test/support/paths.js';
import { clusterSecretsYaml } from './fixtures.js';
import { coldStartMs, timeMs, type BenchRow } from './util.js';

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

  const dir = mkdtempSync(join(tmpdir(), 'bench-shards-'));
  try {
    const file = join(dir, 'clusters.yaml');
    writeFileSync(file, clusterSecretsYaml(100));
    rows.push({
      name: 'cold start: kubectl-gitops --version (median of 10)',
      value: coldStartMs(launcher, ['--version']),
      unit: 'ms',
      target: { value: 250, better: 'lower' },
    });
    rows.push({
      name: 'cold start: shards --replicas 10 on 100 clusters (median of 10)',
      value: coldStartMs(launcher, ['shards', '--replicas', '10', '--clusters-file', file]),
      unit: 'ms',
      target: { value: 250, better: 'lower' },
    });
    rows.push({
      name: 'cold start: shards --help (median of 10)',
      value: coldStartMs(launcher, ['shards', '--help']),
      unit: 'ms',
      target: { value: 300, better: 'lower' },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
