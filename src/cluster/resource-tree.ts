/**
 * `resourceTree(source, roots)`: an app's resource tree as Argo CD builds it for `status.summary` and the
 * UI (controller/appcontroller.go `getResourceTree` over gitops-engine pkg/cache/cluster.go
 * `IterateHierarchyV2`): the app's managed live objects (the roots: the live objects of its last
 * comparison) and, depth first, every object that names one of them, or one of their descendants, in
 * `metadata.ownerReferences` (a Deployment's ReplicaSets and their Pods, a Job's Pods, a CronJob's Jobs).
 *
 * - Edges are by uid (the live cache's owner index, `LiveStateCache.childrenOf`), as gitops-engine's graph
 *   and its `parentUIDToChildren` index. Kubernetes requires a uid on every owner reference, so
 *   gitops-engine's fallback for an empty uid (the owner found by kind and name) has nothing to do here.
 * - A namespaced owner's children are those of its own namespace (`iterateChildrenUsingIndex`); a
 *   cluster-scoped owner's children are found in every namespace the cache holds
 *   (`processCrossNamespaceChildren`: a ClusterRole's aggregated children, Crossplane's providers), and
 *   their descendants in turn.
 * - Each object is a node once (visited by resource key); an ownerReferences cycle ends where it closes.
 * - `permitted(key)` false (the app's AppProject does not permit the kind or namespace: getResourceTree's
 *   `IsResourcePermitted`) leaves the object and what hangs below it out of the tree.
 * - Roots the cache does not hold (a target not created yet) are no nodes: Argo CD lists them as Missing
 *   nodes without any info, which the summary never reads.
 * Nodes may be the cache's stubs (transform.ts `stubOf`): they keep what the summary reads.
 */
import { formatKey, keyOf } from './types.js';
import type { KubeObject, ResourceKey } from './types.js';

/** What the tree reads: the live cache (`LiveStateCache` has both). */
export interface TreeSource {
  get(key: ResourceKey): KubeObject | undefined;
  /** The objects one of whose ownerReferences names `uid`. */
  childrenOf(uid: string): KubeObject[];
}

export interface TreeOptions {
  /** Whether the app's project permits the object at `key` (default: every object). */
  permitted?: (key: ResourceKey) => boolean;
}

/** The nodes of the tree grown from `roots` (see the header): roots first, each followed by its subtree. */
export function resourceTree(
  source: TreeSource,
  roots: readonly ResourceKey[],
  options: TreeOptions = {},
): KubeObject[] {
  const permitted = options.permitted ?? ((): boolean => true);
  const visited = new Set<string>();
  const nodes: KubeObject[] = [];
  const visit = (obj: KubeObject, key: ResourceKey): void => {
    const id = formatKey(key);
    if (visited.has(id) || !permitted(key)) return;
    visited.add(id);
    nodes.push(obj);
    // Depth first with an explicit stack: an owner chain has no depth limit.
    const stack: KubeObject[] = [obj];
    for (let parent = stack.pop(); parent; parent = stack.pop()) {
      const uid = parent.metadata?.uid;
      if (!uid) continue;
      const namespace = parent.metadata?.namespace ?? '';
      for (const child of source.childrenOf(uid)) {
        const childKey = keyOf(child);
        if (namespace !== '' && childKey.namespace !== namespace) continue;
        const childId = formatKey(childKey);
        if (visited.has(childId) || !permitted(childKey)) continue;
        visited.add(childId);
        nodes.push(child);
        stack.push(child);
      }
    }
  };
  for (const key of roots) {
    const obj = source.get(key);
    if (obj) visit(obj, key);
  }
  return nodes;
}
