/**
 * Cluster Secrets for readers other than `shards`: from `--clusters-file` files, else from the live Argo CD
 * namespace (Secrets labelled argocd.argoproj.io/secret-type=cluster).
 *
 * - `readClusterSecrets`: the controller's view (cluster-secrets.ts `clustersFromSecrets`, in-cluster entry
 *   included), for diff/sync destinations. IDs are not needed here, so Secrets without a UID are accepted.
 * - `readAppSetClusters`: what an ApplicationSet clusters generator sees, which is not the controller's
 *   view: Argo CD's generator reads the Secrets itself (applicationset/generators/cluster.go
 *   `getSecretsByClusterName`, `getClusterParameters`; applicationset/utils/clusterUtils.go
 *   `SecretsContainInClusterCredentials`). `config` is never parsed (a Secret with a broken config still
 *   generates), `server` is data.server as written (no "/" trimmed, "" when missing). The generator
 *   (src/apps/appset/generators.ts) keys the Secrets its selector matches by data.name (two with one
 *   name: the later one in list order; warned here) and adds the in-cluster entry when there is no
 *   selector and none of them has the server https://kubernetes.default.svc exactly, whatever argocd-cm's
 *   `cluster.inClusterEnabled` says (the generator does not read it; the controller refuses the apps).
 */
import { readKubeObjects, type SourcedObject } from '../util/yaml-docs.js';
import { clusterSecretDoc, clustersFromSecrets, type ClusterList } from './cluster-secrets.js';
import { CLUSTER_SECRET_SELECTOR } from './live.js';
import { IN_CLUSTER_NAME, IN_CLUSTER_SERVER } from './types.js';

export interface ClusterSecretSource {
  clustersFiles: readonly string[];
  /** Read the live namespace when no file is given. */
  live?: {
    namespace: string;
    kubeconfig?: string | undefined;
    context?: string | undefined;
    requestTimeoutMs?: number | undefined;
  };
  inClusterEnabled?: boolean;
}

async function readSecrets(source: ClusterSecretSource): Promise<SourcedObject[]> {
  const secrets: SourcedObject[] = [];
  if (source.clustersFiles.length > 0) {
    for (const file of source.clustersFiles) secrets.push(...(await readKubeObjects(file)));
  } else if (source.live) {
    const { createKubeReader } = await import('./live-reader.js');
    const reader = await createKubeReader({
      kubeconfig: source.live.kubeconfig,
      context: source.live.context,
      requestTimeoutMs: source.live.requestTimeoutMs,
    });
    const items = await reader
      .listSecrets(source.live.namespace, CLUSTER_SECRET_SELECTOR)
      .finally(() => reader.close?.());
    for (const object of items) secrets.push({ object, file: '', doc: 0 });
  }
  return secrets;
}

export async function readClusterSecrets(source: ClusterSecretSource): Promise<ClusterList> {
  return clustersFromSecrets(await readSecrets(source), {
    idFrom: 'name',
    inClusterEnabled: source.inClusterEnabled ?? true,
  });
}

/** A cluster as an ApplicationSet clusters generator sees it. */
export interface AppSetClusterEntry {
  name: string;
  server: string;
  /** data.project ("" when the Secret has none, as Argo CD's generator gives it). */
  project: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The synthesised in-cluster entry (no Secret). */
  inCluster?: boolean;
}

/**
 * The ApplicationSet generator's clusters from Secret objects (see the module comment): every cluster
 * Secret in list order, then the in-cluster entry; the generator applies its selector, keys the matching
 * Secrets by name and keeps the in-cluster entry only when none of them has its server (as Argo CD's).
 */
export function appSetClustersFromSecrets(objects: readonly SourcedObject[]): {
  clusters: AppSetClusterEntry[];
  warnings: string[];
} {
  const warnings: string[] = [];
  const clusters: AppSetClusterEntry[] = [];
  const sourceOf = new Map<string, string>();
  for (const so of objects) {
    const doc = clusterSecretDoc(so, warnings);
    if (!doc) continue;
    const { object: obj, subject, named, strings } = doc;
    const name = strings.get('name') ?? '';
    const previous = sourceOf.get(name);
    if (previous !== undefined)
      warnings.push(
        `${named}: same name "${name}" as ${previous}: an ApplicationSet clusters generator keeps only the later one its selector matches (Argo CD keys them by name)`,
      );
    sourceOf.set(name, subject);
    clusters.push({
      name,
      server: strings.get('server') ?? '',
      project: strings.get('project') ?? '',
      labels: { ...(obj.metadata?.labels ?? {}) },
      annotations: { ...(obj.metadata?.annotations ?? {}) },
    });
  }
  clusters.push({
    name: IN_CLUSTER_NAME,
    server: IN_CLUSTER_SERVER,
    project: '',
    labels: {},
    annotations: {},
    inCluster: true,
  });
  return { clusters, warnings };
}

export async function readAppSetClusters(
  source: Omit<ClusterSecretSource, 'inClusterEnabled'>,
): Promise<{ clusters: AppSetClusterEntry[]; warnings: string[] }> {
  return appSetClustersFromSecrets(await readSecrets(source));
}
