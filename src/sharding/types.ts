/** Types shared by the sharding module (a leaf: imports nothing from the rest of the project). */

export const ALGORITHMS = ['legacy', 'round-robin', 'consistent-hashing'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

/** Argo CD's default when `controller.sharding.algorithm` is unset (spec 2). */
export const DEFAULT_ALGORITHM: Algorithm = 'legacy';

export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';
export const IN_CLUSTER_NAME = 'in-cluster';

/** One cluster as the sharding cache sees it (spec 1.1). */
export interface ShardCluster {
  /** The cluster Secret's metadata.uid; "" for the synthesised in-cluster entry. Hashed by every algorithm. */
  id: string;
  /** data.server with every trailing "/" removed: the key of the distribution and of app counts. */
  server: string;
  name: string;
  /** data.shard parsed strictly as a base-10 integer; undefined when unset or invalid. May be negative. */
  manualShard?: number | undefined;
  /** Applications (distinct bare names) whose spec.destination.server equals `server` (spec 1.2). */
  apps: number;
  /** argocd.argoproj.io/skip-reconcile is true: no shard manages it, but it still takes part in the maths. */
  skipReconcile?: boolean;
}
