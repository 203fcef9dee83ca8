/**
 * `--from-cluster`: the ApplicationSets stored in the live Argo CD namespace, read with one paged LIST of
 * `applicationsets.argoproj.io/v1alpha1` through the project's cluster client (src/cluster, imported on
 * first use only, as src/apps/cluster.ts reads Applications). No ApplicationSet CRD (404) = none.
 * Each one's origin is "cluster <namespace>/<name>".
 */
import { GitopsError, oneLine } from '../../common/index.js';
import type { KubeObject } from '../../util/yaml-docs.js';
import type { SourcedAppSet } from '../load.js';
import { withLiveConnection } from '../cluster.js';

export interface ClusterAppSetsOptions {
  namespace: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
}

export async function loadClusterApplicationSets(options: ClusterAppSetsOptions): Promise<SourcedAppSet[]> {
  let items: KubeObject[];
  try {
    items = await withLiveConnection(options, async (conn, cluster) => {
      try {
        return await conn.client.listAll(
          {
            group: 'argoproj.io',
            version: 'v1alpha1',
            kind: 'ApplicationSet',
            plural: 'applicationsets',
            namespaced: true,
            verbs: ['list'],
          },
          { namespace: options.namespace },
        );
      } catch (err) {
        if (!cluster.isNotFound(err)) throw err;
        return [];
      }
    });
  } catch (err) {
    throw new GitopsError(`failed to list ApplicationSets: ${oneLine(err)}`, {
      subject: `namespace ${options.namespace}`,
      cause: err,
    });
  }
  return items.map((item) => {
    const manifest: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet', ...item };
    const name = manifest.metadata?.name ?? '?';
    return { manifest, origin: `cluster ${manifest.metadata?.namespace ?? options.namespace}/${name}` };
  });
}
