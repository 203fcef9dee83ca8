/**
 * Cluster Secrets for readers other than `shards` (ApplicationSet clusters generators): from
 * `--clusters-file` files, else from the live Argo CD namespace (Secrets labelled
 * argocd.argoproj.io/secret-type=cluster), read with the same parser as `shards` (cluster-secrets.ts),
 * in-cluster entry included. IDs are not needed here, so Secrets without a UID are accepted.
 */
import { readKubeObjects, type SourcedObject } from '../util/yaml-docs.js';
import { clustersFromSecrets, type ClusterList } from './cluster-secrets.js';
import { CLUSTER_SECRET_SELECTOR } from './live.js';

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

export async function readClusterSecrets(source: ClusterSecretSource): Promise<ClusterList> {
  let secrets: SourcedObject[] = [];
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
    secrets = items.map((object) => ({ object, file: '', doc: 0 }));
  }
  return clustersFromSecrets(secrets, { idFrom: 'name', inClusterEnabled: source.inClusterEnabled ?? true });
}
