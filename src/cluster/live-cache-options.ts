/**
 * The live cache's options and how they become scopes (live-cache-scope.ts: one list+watch each).
 *
 * Scope options (a per-group/kind override in `byGroupKind` wins over the global value):
 * - `namespaces`: namespaced types are cached in these namespaces only (cluster-scoped types everywhere);
 *   undefined means all namespaces.
 * - `labelSelector`: sent with every list and watch.
 * - `transform`: applied to each object before it is stored; default drops `metadata.managedFields`
 *   (`transformFor`).
 * - `manifests` (the whole cache): 'all' (default) stores every object as transformed; 'tracked' stores
 *   in full only objects an app tracks (per `tracking`), CustomResourceDefinitions and keys a target
 *   named, and a stub (metadata only, transform.ts `stubOf`) of every other object, as Argo CD's cluster
 *   cache does (docs/diff.md "What the live cache keeps").
 * - `namespaceMode`: 'auto' (default) lists and watches a namespaced type per namespace when at most
 *   `PER_NAMESPACE_MAX` (4) namespaces are scoped, else cluster-wide once, filtering namespaces on the
 *   client: a handful of namespaces in a big cluster never transfers the whole cluster, and many namespaces
 *   never cost more than 4 lists and watches per type (docs/diff.md "Live cache scope"); 'per-namespace'
 *   and 'cluster' force one way (`scopesFor`). In 'auto', a cluster-wide list answered 403
 *   (namespace-scoped RBAC) falls back to per-namespace lists (live-cache.ts).
 * The other options (client, discovery, concurrency, page size, backoff, watch timeouts, clock, callbacks)
 * are read by live-cache.ts and the list and watch loops; their defaults are documented on each field.
 */
import type { KubeClient } from './client.js';
import type { Discovery } from './discovery.js';
import type { Scope } from './live-cache-scope.js';
import type { TrackingOptions } from './tracking.js';
import { defaultTransform, identityTransform } from './transform.js';
import type { Transform } from './transform.js';
import { groupKind } from './types.js';
import type { ResourceInfo } from './types.js';
import type { Clock } from '../queue/index.js';

export interface ScopeOptions {
  namespaces?: string[] | undefined;
  labelSelector?: string | undefined;
  /** false stores objects unchanged. */
  transform?: Transform | false;
}

export interface LiveCacheOptions extends ScopeOptions {
  client: KubeClient;
  /** Resource types to cache (from discovery); types without list+watch verbs are skipped. */
  resources: ResourceInfo[];
  /** Resolves kinds `managedLive` must fetch directly (not cached). */
  discovery?: Discovery;
  /** Overrides keyed "group/Kind" ("/ConfigMap" for core). */
  byGroupKind?: Record<string, ScopeOptions>;
  namespaceMode?: 'auto' | 'per-namespace' | 'cluster';
  tracking?: TrackingOptions;
  /** Which objects are stored in full (see the header). Default 'all'. */
  manifests?: 'all' | 'tracked';
  /**
   * false: list each scope once and open no watch (a one-shot read such as `diff`, which compares the
   * state as listed and waits for nothing: its kinds' watch requests, a TLS connection each, were a
   * third of the cost of a small diff on a real server; issue 31). Default true.
   */
  watch?: boolean;
  listConcurrency?: number;
  pageSize?: number;
  /** Watch reconnect backoff. Default 200 ms doubling to 10 s. */
  backoff?: { initialMs?: number; maxMs?: number };
  /**
   * Asks the server to end each watch after this long; it is then watched again from the last
   * resourceVersion, without a list. Default: client-go's reflector's, a random 5 to 10 minutes per watch.
   */
  watchTimeoutSeconds?: number;
  /**
   * A watch that delivers no event and no BOOKMARK for this long (opening included) is taken as stalled
   * (a server or proxy that keeps the connection open and sends nothing): it is dropped, the scope is
   * relisted and watched again, with a warning. kube-apiserver sends no BOOKMARK to a watch that has seen
   * no event, so silence alone is normal: by default the limit is the watch's timeoutSeconds plus a minute
   * (the server ends a healthy watch at its timeout first). 0 turns it off.
   */
  watchIdleMs?: number;
  /** Random number in [0, 1) for the watch timeout's jitter (tests). Default Math.random. */
  random?: () => number;
  clock?: Clock;
  /** Recovered problems (reconnects, relists). Default: ignored. */
  onWarning?: (message: string) => void;
  /** Progress of `start`: called after each initial list (`listed` of `scopes`), for progress printers. */
  onSyncProgress?: (listed: number, scopes: number) => void;
}

/**
 * 'auto' namespace mode: up to this many namespaces are listed and watched one by one (a list and a watch
 * stream per type and namespace); more are listed cluster-wide once per type and filtered on the client.
 */
export const PER_NAMESPACE_MAX = 4;

/** The transform of a kind's objects: its override's, else the global one; false: none. */
export function transformFor(
  o: Pick<LiveCacheOptions, 'byGroupKind' | 'transform'>,
  gk: { group: string; kind: string },
): Transform {
  const override = o.byGroupKind?.[groupKind(gk)] ?? {};
  const t = 'transform' in override ? override.transform : o.transform;
  return t === false ? identityTransform : (t ?? defaultTransform);
}

/** The scopes of one resource type (none without list+watch verbs), by its namespaces and the mode. */
export function scopesFor(o: LiveCacheOptions, info: ResourceInfo): Scope[] {
  if (!info.verbs.includes('list') || !info.verbs.includes('watch')) return [];
  const gk = groupKind(info);
  const override = o.byGroupKind?.[gk] ?? {};
  const namespaces = 'namespaces' in override ? override.namespaces : o.namespaces;
  const labelSelector = 'labelSelector' in override ? override.labelSelector : o.labelSelector;
  const transform = transformFor(o, info);
  const base = { info, labelSelector, transform, resourceVersion: '' };
  if (!info.namespaced || namespaces === undefined) {
    return [{ ...base, id: `${gk}@*`, namespace: undefined, namespaces: undefined }];
  }
  const unique = [...new Set(namespaces)];
  const mode = o.namespaceMode ?? 'auto';
  if (mode === 'per-namespace' || (mode === 'auto' && unique.length <= PER_NAMESPACE_MAX)) {
    return unique.map((ns) => ({ ...base, id: `${gk}@${ns}`, namespace: ns, namespaces: undefined }));
  }
  return [{ ...base, id: `${gk}@*`, namespace: undefined, namespaces: new Set(unique) }];
}
