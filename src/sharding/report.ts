/**
 * Distribution reports: every cluster's shard under each algorithm, per-shard totals, and what moves when
 * the replica count changes. Pure functions over the cluster list (plan pure, print elsewhere).
 *
 * Load figures: "apps" is the Application count (what consistent-hashing balances and what drives a
 * controller's work); "clusters" is the cluster count. A cluster is *unmanaged* when its shard is outside
 * 0..R-1 (a negative manual shard) or it has skip-reconcile: no controller reconciles it, so it is counted
 * apart and left out of the averages.
 */
import { distribute } from './distribute.js';
import { ALGORITHMS, DEFAULT_ALGORITHM, type Algorithm, type ShardCluster } from './types.js';

export interface ClusterRow {
  name: string;
  server: string;
  id: string;
  apps: number;
  /** The manual `shard` field, or null when unset. Negative: no controller manages the cluster. */
  manualShard: number | null;
  skipReconcile: boolean;
  shards: Partial<Record<Algorithm, number>>;
}

export interface ShardTotals {
  shard: number;
  clusters: number;
  apps: number;
  /** This shard's count as a percentage of the average over 0..R-1 (null when the average is 0). */
  clustersPercentOfAverage: number | null;
  appsPercentOfAverage: number | null;
}

export interface AlgorithmSummary {
  shards: ShardTotals[];
  /** Clusters no controller reconciles (negative manual shard, skip-reconcile). */
  unmanaged: { clusters: number; apps: number };
  average: { clusters: number; apps: number };
  /** Largest shard / average (1 = perfectly even); null when the average is 0. */
  imbalance: { clusters: number | null; apps: number | null };
}

export interface ClusterMove {
  name: string;
  server: string;
  apps: number;
  from: number;
  to: number;
}

export interface MoveSummary {
  clusters: number;
  apps: number;
  moved: ClusterMove[];
}

export interface Distribution {
  replicas: number;
  algorithms: Algorithm[];
  defaultAlgorithm: Algorithm;
  clusters: ClusterRow[];
  summary: Partial<Record<Algorithm, AlgorithmSummary>>;
  /** Present with fromReplicas: per algorithm, the clusters whose shard differs between M and R replicas. */
  fromReplicas?: number;
  moves?: Partial<Record<Algorithm, MoveSummary>>;
}

export interface DistributionOptions {
  replicas: number;
  algorithms?: readonly Algorithm[];
  fromReplicas?: number;
}

function isManaged(shard: number, replicas: number, c: ShardCluster): boolean {
  // R <= 1 still runs one controller (shard 0).
  return !c.skipReconcile && shard >= 0 && shard < Math.max(replicas, 1);
}

// Figures are rounded once here, so every printer shows the same numbers (JSON included).
function percent(value: number, average: number): number | null {
  return average === 0 ? null : Math.round((value / average) * 1000) / 10;
}

function ratio(max: number, average: number): number | null {
  return average === 0 ? null : Math.round((max / average) * 1000) / 1000;
}

export function summarize(
  clusters: readonly ShardCluster[],
  shards: readonly number[],
  replicas: number,
): AlgorithmSummary {
  const slots = Math.max(replicas, 1);
  const perShard = Array.from({ length: slots }, () => ({ clusters: 0, apps: 0 }));
  const unmanaged = { clusters: 0, apps: 0 };
  clusters.forEach((c, i) => {
    const shard = shards[i]!;
    const bucket = isManaged(shard, replicas, c) ? perShard[shard]! : unmanaged;
    bucket.clusters++;
    bucket.apps += c.apps;
  });
  const managed = perShard.reduce((a, s) => ({ clusters: a.clusters + s.clusters, apps: a.apps + s.apps }), {
    clusters: 0,
    apps: 0,
  });
  const exact = { clusters: managed.clusters / slots, apps: managed.apps / slots };
  const average = {
    clusters: Math.round(exact.clusters * 100) / 100,
    apps: Math.round(exact.apps * 100) / 100,
  };
  return {
    shards: perShard.map((s, shard) => ({
      shard,
      clusters: s.clusters,
      apps: s.apps,
      clustersPercentOfAverage: percent(s.clusters, exact.clusters),
      appsPercentOfAverage: percent(s.apps, exact.apps),
    })),
    unmanaged,
    average,
    imbalance: {
      clusters: ratio(Math.max(...perShard.map((s) => s.clusters)), exact.clusters),
      apps: ratio(Math.max(...perShard.map((s) => s.apps)), exact.apps),
    },
  };
}

export function computeDistribution(
  clusters: readonly ShardCluster[],
  options: DistributionOptions,
): Distribution {
  const algorithms = [...(options.algorithms ?? ALGORITHMS)];
  const { replicas, fromReplicas } = options;
  const rows: ClusterRow[] = clusters.map((c) => ({
    name: c.name,
    server: c.server,
    id: c.id,
    apps: c.apps,
    manualShard: c.manualShard ?? null,
    skipReconcile: c.skipReconcile ?? false,
    shards: {},
  }));
  const result: Distribution = {
    replicas,
    algorithms,
    defaultAlgorithm: DEFAULT_ALGORITHM,
    clusters: rows,
    summary: {},
  };
  if (fromReplicas !== undefined) {
    result.fromReplicas = fromReplicas;
    result.moves = {};
  }
  for (const algorithm of algorithms) {
    const shards = distribute(clusters, replicas, algorithm);
    shards.forEach((s, i) => (rows[i]!.shards[algorithm] = s));
    result.summary[algorithm] = summarize(clusters, shards, replicas);
    if (fromReplicas !== undefined) {
      const before = distribute(clusters, fromReplicas, algorithm);
      const moved: ClusterMove[] = [];
      clusters.forEach((c, i) => {
        // A skip-reconcile cluster is managed by no shard before or after: its number moving is no move.
        if (before[i] !== shards[i] && !c.skipReconcile) {
          moved.push({ name: c.name, server: c.server, apps: c.apps, from: before[i]!, to: shards[i]! });
        }
      });
      result.moves![algorithm] = {
        clusters: moved.length,
        apps: moved.reduce((n, m) => n + m.apps, 0),
        moved,
      };
    }
  }
  return result;
}
