/**
 * Fleet splitting (`--shard I --replicas N`): which controller shard each Application belongs to, so that
 * N runners (a CI matrix, a Kubernetes Indexed Job) each take the apps of one shard and every app is
 * handled by exactly one runner.
 *
 * An app belongs to the shard of its destination cluster (Argo CD `controller/appcontroller.go`, the
 * sharding cache of `controller/sharding/cache.go`), and that shard is computed exactly as `shards` shows
 * it (`distribute`, docs/sharding.md) from the same inputs:
 * - clusters: the cluster Secrets of `clustersFiles`, else of the live Argo CD namespace (with argocd-cm's
 *   `cluster.inClusterEnabled`), plus the in-cluster entry; IDs are the Secrets' UIDs;
 * - app counts (consistent-hashing only): the live Applications in live mode, as the controller counts
 *   them; with cluster files, the Applications passed in (as `shards --apps-file` with the same files).
 *
 * Destinations: `destination.server` (trailing `/` removed, as cluster servers are) or the cluster named by
 * `destination.name`. Decisions where Argo CD's controller differs because it runs forever, not once:
 * - a destination that names no known cluster: Argo CD lets every shard count such an app as its own;
 *   here it goes to shard 0 only (with a warning), so that it is still handled exactly once;
 * - a cluster annotated `argocd.argoproj.io/skip-reconcile: "true"`, or with a negative manual shard, is
 *   managed by no shard, so its apps are left out by every shard (with a warning), as Argo CD leaves them
 *   alone.
 */
import { lookupDestination } from '../cluster/index.js';
import { readKubeDocuments, type SourcedObject } from '../util/yaml-docs.js';
import { countApplications } from './app-counts.js';
import { clustersFromSecrets, requireClusterDocuments, type ClusterEntry } from './cluster-secrets.js';
import { distribute } from './distribute.js';
import type { Algorithm } from './types.js';

export interface AppShardRequest {
  replicas: number;
  algorithm: Algorithm;
  /** Cluster Secret files; none means the live Argo CD namespace. */
  clustersFiles: readonly string[];
  live?: {
    kubeconfig?: string | undefined;
    context?: string | undefined;
    namespace: string;
    requestTimeoutMs?: number | undefined;
  };
  /**
   * With cluster files: the Applications whose count per cluster consistent-hashing balances (the whole
   * fleet, before app names or -l narrowed it, so a selection does not move clusters between shards).
   * Default: the apps being assigned.
   */
  countedApps?: readonly ShardableApp[];
  signal?: AbortSignal;
}

/** What fleet splitting needs of an Application. */
export interface ShardableApp {
  name: string;
  destination: { server?: string | undefined; name?: string | undefined };
}

export interface AppShardAssignment<T> {
  /** The shard of each app; undefined for apps that no shard manages (skip-reconcile clusters). */
  shardOf: Map<T, number | undefined>;
  warnings: string[];
}

export async function assignAppShards<T extends ShardableApp>(
  apps: readonly T[],
  req: AppShardRequest,
): Promise<AppShardAssignment<T>> {
  const warnings: string[] = [];
  let secrets: SourcedObject[] = [];
  let counted: SourcedObject[];
  let inClusterEnabled = true;
  if (req.clustersFiles.length > 0) {
    let documents = 0;
    for (const file of req.clustersFiles) {
      const read = await readKubeDocuments(file);
      secrets.push(...read.objects);
      documents += read.documents;
    }
    requireClusterDocuments(documents, req.clustersFiles);
    counted = (req.countedApps ?? apps).map((app) => ({
      object: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: app.name },
        spec: { destination: { ...(app.destination.server ? { server: app.destination.server } : {}) } },
      },
      file: '',
      doc: 0,
    }));
  } else {
    const live = req.live ?? { namespace: 'argocd' };
    const [{ createKubeReader }, { readLiveInputs }] = await Promise.all([
      import('./live-reader.js'),
      import('./live.js'),
    ]);
    const reader = await createKubeReader({ ...live, signal: req.signal });
    const inputs = await readLiveInputs(reader, live.namespace, new Date()).finally(() => reader.close?.());
    secrets = inputs.secrets;
    counted = inputs.applications;
    inClusterEnabled = inputs.inClusterEnabled;
  }
  const list = clustersFromSecrets(secrets, { idFrom: 'uid', inClusterEnabled });
  warnings.push(...list.warnings);
  const counts = countApplications(counted);
  for (const c of list.clusters) c.apps = counts.byServer.get(c.server) ?? 0;
  const shards = distribute(list.clusters, req.replicas, req.algorithm);
  const byServer = new Map<string, { cluster: ClusterEntry; shard: number }>();
  list.clusters.forEach((cluster, i) => {
    byServer.set(cluster.server, { cluster, shard: shards[i]! });
  });

  const shardOf = new Map<T, number | undefined>();
  for (const app of apps) {
    const found = lookupDestination(app.destination, list.secrets, inClusterEnabled);
    const entry = found.found === 'none' ? undefined : byServer.get(found.server);
    if (!entry) {
      const { server, name } = app.destination;
      const destination = server ? `server ${server}` : `name ${name ?? '(none)'}`;
      const why = found.found === 'none' ? ` (${found.error})` : '';
      warnings.push(
        `app ${app.name}: destination ${destination} is not a known cluster${why}; it goes to shard 0 only`,
      );
      shardOf.set(app, 0);
    } else if (entry.cluster.skipReconcile) {
      warnings.push(
        `app ${app.name}: cluster ${entry.cluster.name || entry.cluster.server} has skip-reconcile set; no shard manages it`,
      );
      shardOf.set(app, undefined);
    } else if (entry.shard < 0) {
      warnings.push(
        `app ${app.name}: cluster ${entry.cluster.name || entry.cluster.server} has manual shard ${entry.shard}; no shard manages it`,
      );
      shardOf.set(app, undefined);
    } else {
      shardOf.set(app, entry.shard);
    }
  }
  return { shardOf, warnings };
}

/** The apps that shard `shard` of `req.replicas` manages, in their input order. */
export async function appsOnShard<T extends ShardableApp>(
  apps: readonly T[],
  shard: number,
  req: AppShardRequest,
): Promise<{ apps: T[]; warnings: string[] }> {
  const { shardOf, warnings } = await assignAppShards(apps, req);
  return { apps: apps.filter((a) => shardOf.get(a) === shard), warnings };
}
