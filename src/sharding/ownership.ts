/**
 * Which apps and clusters one controller shard owns: Argo CD's `ClusterSharding.IsManagedCluster` over the
 * distribution `kubectl gitops shards` prints (cluster-secrets.ts -> app-counts.ts -> distribute.ts, the
 * same path), so a controller run as `--shard I --replicas N` and one that claimed shard I of N in dynamic
 * mode own exactly the clusters `shards --replicas N` puts on shard I.
 *
 * Rules (controller/sharding/cache.go, controller/appcontroller.go canProcessApp):
 * - a cluster is owned when its shard equals this controller's shard, unless the cluster Secret has
 *   `argocd.argoproj.io/skip-reconcile` true (then no shard owns it); a server missing from the
 *   distribution counts as shard 0;
 * - an app is owned when its destination cluster is owned. Destinations are looked up as Argo CD's
 *   GetDestinationCluster (src/cluster/cluster-lookup.ts: `server` trailing "/" removed, or the Secrets
 *   named `name`, duplicates by server counted); a Secret with no server is a cluster like any other here
 *   (server ""), found by its name. A destination that names no known cluster, or a name two Secrets
 *   share, or both server and name, cannot be resolved, and then every shard owns the app
 *   (`IsManagedCluster(nil)` is true), as Argo CD does: each controller then reports the app's destination
 *   error. `unknownDestination: 'shard-0'` gives such apps to shard 0 only (what fleet splitting does).
 * - Quirk: a controller that holds no shard (-1 in dynamic mode) owns the clusters whose manual shard is
 *   -1, because the comparison is a plain equality (IsManagedCluster).
 *
 * App-level `argocd.argoproj.io/skip-reconcile` on the Application is the loop's business, not sharding's.
 */
import { lookupDestination, type KubeObject } from '../cluster/index.js';
import { countApplications } from './app-counts.js';
import type { ShardableApp } from './app-shards.js';
import { clustersFromSecrets, type ClusterEntry } from './cluster-secrets.js';
import { distribute } from './distribute.js';
import type { Algorithm } from './types.js';

export interface OwnershipRequest {
  /** This controller's shard (-1: none). */
  shard: number;
  replicas: number;
  algorithm: Algorithm;
  /** The cluster Secrets of the Argo CD namespace (label argocd.argoproj.io/secret-type=cluster). */
  clusterSecrets: readonly KubeObject[];
  /** Every Application the controller watches (consistent-hashing balances their counts per cluster). */
  applications: readonly KubeObject[];
  /** argocd-cm `cluster.inClusterEnabled` (on unless exactly "false"). */
  inClusterEnabled: boolean;
  /** Apps whose destination cannot be resolved: 'every-shard' (Argo CD, default) or 'shard-0'. */
  unknownDestination?: 'every-shard' | 'shard-0';
}

export interface ShardOwnership {
  shard: number;
  replicas: number;
  /** server -> shard, for every cluster (skip-reconcile ones included, as `shards` shows them). */
  shardOfServer: ReadonlyMap<string, number>;
  /** Servers this shard manages, in cluster list order. */
  ownedServers: string[];
  ownsServer(server: string): boolean;
  ownsApp(app: ShardableApp): boolean;
  /** The cluster an app targets, or undefined when its destination cannot be resolved. */
  destinationOf(app: ShardableApp): ClusterEntry | undefined;
  warnings: string[];
}

const trimServer = (server: string): string => server.replace(/\/+$/, '');

export function shardOwnership(req: OwnershipRequest): ShardOwnership {
  const sourced = (objects: readonly KubeObject[]) =>
    objects.map((object, doc) => ({ object, file: '', doc }));
  const list = clustersFromSecrets(sourced(req.clusterSecrets), {
    idFrom: 'uid',
    inClusterEnabled: req.inClusterEnabled,
  });
  const counts = countApplications(sourced(req.applications));
  for (const c of list.clusters) c.apps = counts.byServer.get(c.server) ?? 0;
  const shards = distribute(list.clusters, req.replicas, req.algorithm);
  const shardOfServer = new Map<string, number>();
  const byServer = new Map<string, ClusterEntry>();
  list.clusters.forEach((c, i) => {
    shardOfServer.set(c.server, shards[i]!);
    byServer.set(c.server, c);
  });
  const managed = (c: ClusterEntry): boolean =>
    !c.skipReconcile && (shardOfServer.get(c.server) ?? 0) === req.shard;
  const destinationOf = (app: ShardableApp): ClusterEntry | undefined => {
    const found = lookupDestination(app.destination, list.secrets, req.inClusterEnabled);
    return found.found === 'none' ? undefined : byServer.get(found.server);
  };
  const everyShard = (req.unknownDestination ?? 'every-shard') === 'every-shard';
  return {
    shard: req.shard,
    replicas: req.replicas,
    shardOfServer,
    ownedServers: list.clusters.filter(managed).map((c) => c.server),
    ownsServer: (server) => {
      const c = byServer.get(trimServer(server));
      return c ? managed(c) : everyShard || req.shard === 0;
    },
    ownsApp: (app) => {
      const c = destinationOf(app);
      return c ? managed(c) : everyShard || req.shard === 0;
    },
    destinationOf,
    warnings: [...list.warnings, ...counts.warnings],
  };
}
