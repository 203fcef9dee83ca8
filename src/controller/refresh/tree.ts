/**
 * `treeSummarizer`: an app's `status.summary` from its resource tree, as Argo CD's controller computes it
 * on every refresh (controller/appcontroller.go `getResourceTree` then `ApplicationTree.GetSummary`): the
 * tree grows from the app's managed live objects (the live objects of its last comparison) through
 * ownerReferences in the live cache (src/cluster resource-tree.ts), leaving out what the app's AppProject
 * does not permit (`IsResourcePermitted`), and src/apps `applicationSummary` reads its nodes (live Pods'
 * images, Ingress and link URLs, app of apps) and the Application's link annotations.
 *
 * The summarizer reads the cache each time it is called, so the continuous loop's level-0 refresh (a
 * ReplicaSet or Pod of the app changed: Argo CD's `ComparisonWithNothing`) calls it again without
 * rendering or comparing. It holds only the cache, the root keys, the annotations and the project: it is
 * built here, apart from the comparison's scope, so it never keeps a comparison's objects alive.
 */
import type { AppSummary } from '../../apps/index.js';
import { applicationSummary, isResourcePermitted } from '../../apps/index.js';
import { resourceTree } from '../../cluster/index.js';
import type { KubeObject, ResourceKey, TreeSource } from '../../cluster/index.js';
import type { AppProjectContext } from './projects.js';

/** Computes the app's summary from the cache as it is now (see the header). */
export type TreeSummarizer = () => AppSummary;

export function treeSummarizer(
  cache: TreeSource,
  roots: readonly ResourceKey[],
  appAnnotations: Record<string, string>,
  project?: AppProjectContext,
  /**
   * Managed resources with no live object: getResourceTree adds each as a node holding its reference
   * alone (so a child Application not created yet already makes the app an app of apps).
   */
  missing: readonly ResourceKey[] = [],
): TreeSummarizer {
  const permitted = project
    ? (key: ResourceKey): boolean =>
        isResourcePermitted(project.project, key, project.cluster, project.projectClusters)
    : undefined;
  const refs = missing.map((k): KubeObject => ({
    apiVersion: k.group ? `${k.group}/v1` : 'v1',
    kind: k.kind,
    metadata: { name: k.name, ...(k.namespace ? { namespace: k.namespace } : {}) },
  }));
  return () =>
    applicationSummary(
      [...resourceTree(cache, roots, permitted ? { permitted } : {}), ...refs],
      appAnnotations,
    );
}
