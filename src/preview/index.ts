/**
 * Previews without a cluster (the door of `src/preview/`): the app tree (ApplicationSets expanded,
 * app-of-apps followed, tree.ts) and `diff --base` (base.ts), plus `clusterSource`, the cluster Secrets
 * ApplicationSet clusters generators read (`--clusters-file`, else the live Argo CD namespace, read once),
 * as Argo CD's generator reads them (src/sharding/cluster-source.ts `readAppSetClusters`).
 */
import type { AppSetCluster } from '../apps/appset/index.js';
import { readAppSetClusters } from '../sharding/index.js';
import type { BasePreviewOptions, PreviewReport } from './base.js';

export { buildAppTree, DEFAULT_MAX_DEPTH } from './tree.js';
export type { AppTree, TreeNode, TreeOptions } from './tree.js';
export { withTreeErrors } from './tree-report.js';
export type { AppChange, BasePreviewOptions, PreviewApp, PreviewReport } from './base.js';

export interface ClusterSourceOptions {
  clustersFiles: readonly string[];
  /** When no file is given: read the live namespace (false: no clusters but in-cluster). */
  live?: {
    namespace: string;
    kubeconfig?: string | undefined;
    context?: string | undefined;
    requestTimeoutMs?: number | undefined;
  };
  onWarning?: (message: string) => void;
}

/** `diff --base` (base.ts), loaded on first use: it brings the diff engine, which other commands never load. */
export async function runBasePreview(options: BasePreviewOptions): Promise<PreviewReport> {
  return (await import('./base.js')).runBasePreview(options);
}

/** A lazy, memoised cluster list for clusters generators. */
export function clusterSource(options: ClusterSourceOptions): () => Promise<AppSetCluster[]> {
  let promise: Promise<AppSetCluster[]> | undefined;
  return () =>
    (promise ??= (async () => {
      const list = await readAppSetClusters({
        clustersFiles: options.clustersFiles,
        ...(options.live ? { live: options.live } : {}),
      });
      for (const w of list.warnings) options.onWarning?.(w);
      return list.clusters.map((c) => ({
        name: c.name,
        server: c.server,
        labels: c.labels,
        annotations: c.annotations,
        project: c.project,
        ...(c.inCluster ? { inCluster: true } : {}),
      }));
    })());
}
