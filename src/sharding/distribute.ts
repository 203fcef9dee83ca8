/**
 * Cluster -> shard assignment exactly as Argo CD's sharding cache computes it (spec 3):
 *
 * 1. A manual shard wins: kept when < R (negative values too: then no controller manages the cluster),
 *    otherwise 0 (not the algorithm's answer).
 * 2. Otherwise R <= 1 gives 0, for every algorithm.
 * 3. Otherwise the algorithm runs over ALL clusters, manual ones included (they keep their round-robin rank
 *    and add their app load to the ring), and only the non-manual clusters take its answer.
 *
 * IDs are compared byte by byte (UTF-8), like Go's string comparison.
 */
import { fnv1a32 } from './hash.js';
import { BoundedLoadBalancer, ConsistentRing } from './ring.js';
import type { Algorithm, ShardCluster } from './types.js';

/** Byte-order comparison of two strings' UTF-8 encodings (Go's `<` on strings). */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Indices of `clusters` sorted by ID in byte order; a stable sort keeps list order for equal IDs. */
function indicesByID(clusters: readonly ShardCluster[]): number[] {
  const keys = clusters.map((c) => Buffer.from(c.id, 'utf8'));
  return clusters.map((_, i) => i).sort((a, b) => Buffer.compare(keys[a]!, keys[b]!));
}

function legacy(clusters: readonly ShardCluster[], replicas: number): number[] {
  return clusters.map((c) => (c.id === '' ? 0 : fnv1a32(c.id) % replicas));
}

function roundRobin(clusters: readonly ShardCluster[], replicas: number): number[] {
  const result = new Array<number>(clusters.length);
  indicesByID(clusters).forEach((clusterIndex, position) => {
    result[clusterIndex] = position % replicas;
  });
  return result;
}

const rings = new Map<number, ConsistentRing>();

/** Rings depend only on R; building one hashes R x 1000 keys, so reuse it across calls. */
export function ringFor(replicas: number): ConsistentRing {
  let ring = rings.get(replicas);
  if (!ring) {
    ring = new ConsistentRing(replicas);
    rings.set(replicas, ring);
  }
  return ring;
}

function consistentHashing(clusters: readonly ShardCluster[], replicas: number): number[] {
  const balancer = new BoundedLoadBalancer(ringFor(replicas));
  const result = new Array<number>(clusters.length);
  for (const i of indicesByID(clusters)) {
    const c = clusters[i]!;
    result[i] = balancer.place(c.id, Math.max(0, c.apps));
  }
  return result;
}

const ALGORITHM_IMPLS: Record<Algorithm, (clusters: readonly ShardCluster[], replicas: number) => number[]> =
  {
    legacy,
    'round-robin': roundRobin,
    'consistent-hashing': consistentHashing,
  };

/**
 * The shard of every cluster, aligned with `clusters`. `replicas` is the controller replica count R
 * (values <= 1 put every cluster without a manual shard on shard 0).
 */
export function distribute(
  clusters: readonly ShardCluster[],
  replicas: number,
  algorithm: Algorithm,
): number[] {
  const computed = replicas > 1 ? ALGORITHM_IMPLS[algorithm](clusters, replicas) : undefined;
  return clusters.map((c, i) => {
    if (c.manualShard !== undefined) return c.manualShard < replicas ? c.manualShard : 0;
    return computed ? computed[i]! : 0;
  });
}

/** A name from config or flags -> algorithm; Argo CD falls back to legacy for anything unknown. */
export function parseAlgorithm(name: string | undefined): { algorithm: Algorithm; known: boolean } {
  if (name === 'legacy' || name === 'round-robin' || name === 'consistent-hashing') {
    return { algorithm: name, known: true };
  }
  return { algorithm: 'legacy', known: name === undefined || name === '' };
}
