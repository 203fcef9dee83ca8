/**
 * Which live objects belong to one app's refresh, and what its AppProject makes of them (Argo CD
 * controller/state.go CompareAppState; spec §3-4; docs/projects.md).
 *
 * - `selectPairs`: live = the cache's objects tracked by the app (`trackedBy`) plus the live object at each
 *   served target key, even untracked, all through `LiveStateCache.managedLive` (the one read door: a
 *   target whose apiVersion is not the one cached is read by one GET at its own version). In order:
 *   the cluster's scope refuses targets outside it (a cluster Secret's namespaces: `checkScope`, throws),
 *   then the live objects are read, then the ones the project does not permit are dropped (`permittedLive`,
 *   projects.ts), then live objects are paired with targets by key, targets first in their order. A kind
 *   the cluster does not serve has no live object. Leftover live objects are extras (prune candidates),
 *   except hooks, ignored hook objects and objects whose tracking id names another key (copied
 *   annotations): those are listed with no status (`noStatus`).
 * - `kindsOf`: every kind of the refresh (targets, hooks, extras) to its served `ResourceInfo` (undefined:
 *   not served), one discovery lookup per extra; the app's live hooks by key; and each target's
 *   group/version/kind the cluster does not serve (`unserved`: the kind not served at all, or its group
 *   serving it at other versions only), with discovery's error as gitops-engine's getSyncTasks meets it
 *   (kube.ServerResourceForGroupVersionKind: the group version not served, or served without the kind)
 *   and a served kind of the same name (what Argo CD's util/argo AugmentSyncMsg names, its
 *   getAPIResourceInfo: the same group first, at its preferred version, else the first group).
 * - `projectStatus`: rows of kinds the project does not permit become Unknown (`markNotPermitted`; the
 *   returned `statusOf` is what the app's sync status counts) and, when the project asks
 *   (`orphanedResources.warn`), an OrphanedResourceWarning condition counts the orphaned resources.
 *   Without a project: every row counts as compared, no condition.
 * - `byKey`: the rows' order (group, kind, namespace, name).
 */
import { formatKey, keyOf, owningApp } from '../../cluster/index.js';
import { parseApiVersion } from '../../common/index.js';
import type { KubeObject, LiveStateCache, ResourceInfo, TrackingMethod } from '../../cluster/index.js';
import { isHook, isIgnored } from '../../health/index.js';
import { unservedId } from '../../sync/index.js';
import type { Unserved } from '../../sync/index.js';
import type { ClusterState } from './cluster.js';
import type { Pair } from './compare.js';
import { selfReferenced } from './compare.js';
import { markNotPermitted, orphanedResources, permittedLive } from './projects.js';
import type { AppProjectContext } from './projects.js';
import type { Target } from './targets.js';
import type { AppCondition, ReconciledResource } from './types.js';

/** The app's pairs of target and live object (see the header). */
export async function selectPairs(o: {
  cluster: ClusterState;
  cache: LiveStateCache;
  targets: readonly Target[];
  trackedBy: string;
  projectContext: AppProjectContext | undefined;
  trackingMethod: TrackingMethod;
  signal?: AbortSignal | undefined;
}): Promise<Pair[]> {
  const { cluster, targets } = o;
  // A cluster Secret limited to some namespaces refuses targets outside them (ClusterState.checkScope).
  cluster.checkScope(targets);
  const live = await o.cache.managedLive(
    o.trackedBy,
    targets.flatMap((t) =>
      !t.served
        ? []
        : t.served.servedAtVersion && cluster.cachedVersion(t.key) === t.version
          ? [{ key: t.key }]
          : [{ key: t.key, info: t.served.info }],
    ),
    o.signal,
  );
  // The project's limits (Argo CD's CompareAppState): live objects it does not permit are left out.
  if (o.projectContext) permittedLive(live, o.projectContext);

  const pairs: Pair[] = targets.map((t) => {
    const id = formatKey(t.key);
    const obj = t.served ? live.get(id) : undefined;
    live.delete(id);
    return {
      target: t,
      ...(obj ? { live: obj } : {}),
      ...t.key,
      // The row's version is the live object's, as read (Argo CD's CompareAppState takes the row's group
      // and version from the live object when there is one): the target's own, unless the cluster does not
      // serve the kind at it (then the live object is read at the served version, as gitops-engine's
      // GetManagedLiveObjs keeps it when the conversion and the read at the target's version both fail).
      version: obj ? versionOf(obj) : t.version,
      ...(t.skip ? { noStatus: true } : {}),
    };
  });
  // Leftover live objects: extras (prune candidates), except hooks, ignored hook objects and objects
  // whose tracking id names another object (copied annotations), which are listed with no status.
  for (const obj of live.values()) {
    const version = versionOf(obj);
    const noStatus = isHook(obj) || isIgnored(obj) || !selfReferenced(obj, o.trackingMethod);
    pairs.push({ live: obj, ...keyOf(obj), version, ...(noStatus ? { noStatus } : {}) });
  }
  return pairs;
}

function versionOf(obj: KubeObject): string {
  return parseApiVersion(obj.apiVersion ?? '').version;
}

/** Every kind of the refresh to its served info, and the app's live hooks (see the header). */
export async function kindsOf(o: {
  cluster: ClusterState;
  cache: LiveStateCache;
  targets: readonly Target[];
  pairs: readonly Pair[];
  trackedBy: string;
  signal?: AbortSignal | undefined;
}): Promise<{
  kinds: Map<string, ResourceInfo | undefined>;
  liveHooks: Map<string, KubeObject>;
  unserved: Map<string, Unserved>;
}> {
  const kinds = new Map<string, ResourceInfo | undefined>();
  for (const t of o.targets) kinds.set(`${t.key.group}/${t.key.kind}`, t.served?.info);
  const liveHooks = new Map<string, KubeObject>();
  for (const p of o.pairs) {
    if (p.live && !p.target) {
      const served = await o.cluster.kind({ group: p.group, version: p.version, kind: p.kind }, o.signal);
      kinds.set(`${p.group}/${p.kind}`, served?.info);
    }
  }
  for (const obj of o.cache.byApp(o.trackedBy)) if (isHook(obj)) liveHooks.set(formatKey(keyOf(obj)), obj);
  const unserved = new Map<string, Unserved>();
  const missing = o.targets.filter((t) => !t.served?.servedAtVersion);
  if (missing.length > 0) {
    const all = await o.cluster.conn.discovery.resources(o.signal);
    const preferred = all.filter((r) => r.preferred);
    for (const { key, version } of missing) {
      const { group, kind } = key;
      const groupVersion = group ? `${group}/${version}` : version;
      const error = all.some((r) => r.group === group && r.version === version)
        ? `${group ? `${kind}.${group}` : kind} "" not found`
        : `failed to discover server resources for group version ${groupVersion}: the server could not find the requested resource`;
      const found =
        preferred.find((r) => r.group === group && r.kind === kind) ?? preferred.find((r) => r.kind === kind);
      unserved.set(unservedId(group, version, kind), {
        error,
        ...(found ? { installed: { group: found.group, version: found.version } } : {}),
      });
    }
  }
  return { kinds, liveHooks, unserved };
}

/** The project's verdict on the rows (see the header): the status each row counts with. */
export function projectStatus(
  resources: readonly ReconciledResource[],
  conditions: AppCondition[],
  o: {
    projectContext: AppProjectContext | undefined;
    kinds: ReadonlyMap<string, ResourceInfo | undefined>;
    cache: LiveStateCache;
    destNamespace: string;
    trackingMethod: TrackingMethod;
    instanceLabelKey: string;
    installationId: string | undefined;
  },
): (r: ReconciledResource) => string {
  const projectContext = o.projectContext;
  // Kinds the project does not permit: their rows are Unknown, the app's status counts them as compared.
  const notPermitted = projectContext
    ? markNotPermitted(
        resources,
        projectContext.project,
        (gk) => o.kinds.get(`${gk.group}/${gk.kind}`)?.namespaced ?? false,
      )
    : new Map<ReconciledResource, string>();
  const statusOf = (r: ReconciledResource): string => notPermitted.get(r) ?? r.status;
  if (projectContext?.project.orphanedResources?.warn) {
    const orphans = orphanedResources(o.cache.all(), {
      namespace: o.destNamespace,
      managed: new Set(resources.map((r) => `${r.group}/${r.kind}/${r.namespace}/${r.name}`)),
      p: projectContext,
      trackedBy: (obj) =>
        owningApp(obj, {
          method: o.trackingMethod,
          instanceLabelKey: o.instanceLabelKey,
          ...(o.installationId ? { installationId: o.installationId } : {}),
        }),
    });
    if (orphans.length > 0)
      conditions.push({
        type: 'OrphanedResourceWarning',
        message: `Application has ${orphans.length} orphaned resources`,
      });
  }
  return statusOf;
}

export function byKey(a: ReconciledResource, b: ReconciledResource): number {
  for (const f of ['group', 'kind', 'namespace', 'name'] as const) {
    if (a[f] !== b[f]) return a[f] < b[f] ? -1 : 1;
  }
  return 0;
}
