/**
 * The AppProject in a refresh (rules: src/apps/project-rules.ts; docs/projects.md):
 * - `destinationCluster`: the `{ server, name }` Argo CD's Cluster object would have for a destination
 *   resolved through the kubeconfig: `server` as written (or the context's cluster server for a `name`
 *   destination; `https://kubernetes.default.svc` for `in-cluster`), `name` as written (or `in-cluster`
 *   for the in-cluster server, else the context the server resolved to).
 * - `permittedLive`: Argo CD's `CompareAppState` drops live objects the project does not permit
 *   (`IsLiveResourcePermitted`) before pairing: they are neither compared nor pruned.
 * - `markNotPermitted`: a resource row whose kind the project does not permit gets status Unknown
 *   (`CompareAppState`: "set unknown status to all resource that are not permitted in the app project"),
 *   while the app's sync status still counts it as the comparison found it.
 * - `orphanedResources`: `getResourceTree`'s orphaned nodes: top-level objects (no owner) of the
 *   destination namespace that the app does not manage, of kinds the project permits, minus Argo CD's
 *   known exclusions and the project's ignore list, with their owned descendants; objects tracked by an
 *   app are never orphans (see docs/projects.md for the one difference from Argo CD).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  IN_CLUSTER_SERVER,
  isGroupKindNamePermitted,
  isKnownOrphanedResourceExclusion,
  isResourcePermitted,
  type AppProject,
  type Application,
  type ProjectCluster,
  type ProjectClusters,
} from '../../apps/index.js';
import { keyOf, type KubeObject } from '../../cluster/index.js';

export const IN_CLUSTER_NAME = 'in-cluster';

/** What the refresh of one app knows of its project. */
export interface AppProjectContext {
  project: AppProject;
  cluster: ProjectCluster;
  projectClusters?: ProjectClusters | undefined;
}

export function destinationCluster(
  kc: KubeConfig,
  dest: Application['destination'],
  context: string,
): ProjectCluster {
  const trim = (s: string): string => s.replace(/\/+$/, '');
  if (dest.server) {
    const server = trim(dest.server);
    return { server, name: server === IN_CLUSTER_SERVER ? IN_CLUSTER_NAME : context };
  }
  if (dest.name === IN_CLUSTER_NAME) return { server: IN_CLUSTER_SERVER, name: IN_CLUSTER_NAME };
  const clusterName = kc.getContextObject(context)?.cluster;
  const server = clusterName ? kc.getCluster(clusterName)?.server : undefined;
  return { server: server ? trim(server) : '', name: dest.name ?? '' };
}

/** Removes from `live` (id -> object) the objects the project does not permit. */
export function permittedLive(live: Map<string, KubeObject>, p: AppProjectContext): void {
  for (const [id, obj] of live) {
    if (!isResourcePermitted(p.project, keyOf(obj), p.cluster, p.projectClusters)) live.delete(id);
  }
}

import type { ReconciledResource } from './types.js';

/**
 * Marks rows whose kind is not permitted (status Unknown, with a message); returns the marked rows and
 * their status before marking. `namespaced` is the kind's scope as served (unknown kinds: false).
 */
export function markNotPermitted(
  rows: readonly ReconciledResource[],
  project: AppProject,
  namespaced: (gk: { group: string; kind: string }) => boolean,
): Map<ReconciledResource, string> {
  const marked = new Map<ReconciledResource, string>();
  for (const r of rows) {
    if (isGroupKindNamePermitted(project, r, r.name, namespaced(r))) continue;
    marked.set(r, r.status);
    r.status = 'Unknown';
    r.message = `resource ${r.group}:${r.kind} is not permitted in project ${project.name}`;
  }
  return marked;
}

/**
 * The orphaned objects of `namespace` (Argo CD's orphaned nodes), sorted by group, kind, name. `objects`
 * are the live cache's; `managed` the keys (`group/kind/namespace/name`) of the app's resource rows;
 * `trackedBy` the app an object's tracking names (undefined: none).
 */
export function orphanedResources(
  objects: readonly KubeObject[],
  options: {
    namespace: string;
    managed: ReadonlySet<string>;
    p: AppProjectContext;
    trackedBy: (obj: KubeObject) => string | undefined;
  },
): KubeObject[] {
  const { namespace, p } = options;
  if (!namespace) return [];
  const inNamespace = objects.filter((o) => o.metadata?.namespace === namespace);
  const children = new Map<string, KubeObject[]>();
  for (const obj of inNamespace) {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      const list = children.get(ref.uid) ?? [];
      list.push(obj);
      children.set(ref.uid, list);
    }
  }
  const out: KubeObject[] = [];
  const seen = new Set<string>();
  const visit = (obj: KubeObject): void => {
    const uid = obj.metadata?.uid ?? '';
    const id = `${uid}/${JSON.stringify(keyOf(obj))}`;
    if (seen.has(id)) return;
    seen.add(id);
    if (options.trackedBy(obj) !== undefined) return;
    if (!isResourcePermitted(p.project, keyOf(obj), p.cluster, p.projectClusters)) return;
    out.push(obj);
    if (uid) for (const child of children.get(uid) ?? []) visit(child);
  };
  for (const obj of inNamespace) {
    if ((obj.metadata?.ownerReferences ?? []).length > 0) continue;
    const k = keyOf(obj);
    if (options.managed.has(`${k.group}/${k.kind}/${k.namespace}/${k.name}`)) continue;
    if (!isGroupKindNamePermitted(p.project, k, k.name, true)) continue;
    if (isKnownOrphanedResourceExclusion(k, p.project)) continue;
    visit(obj);
  }
  const label = (o: KubeObject): string => {
    const k = keyOf(o);
    return `${k.group}/${k.kind}/${k.name}`;
  };
  return out.sort((a, b) => (label(a) < label(b) ? -1 : label(a) > label(b) ? 1 : 0));
}
