/**
 * Live-cache events → app refreshes, for the continuous loop (Argo CD's `handleObjectUpdated` →
 * `requestAppRefresh`, controller/appcontroller.go; the event handler of controller/cache/cache.go).
 *
 * Which apps an event touches, and at which level (Argo CD's OnResourceUpdated handler in
 * controller/cache/cache.go: `getApp`, `isRootAppNode`; then `handleObjectUpdated`), for the object now and
 * its previous state (a MODIFIED may change tracking or owners):
 * - an object without ownerReferences whose tracking names an app (a root node of that app's tree), and
 *   an object an app's last comparison listed (a target not yet tracked, a resource of another tracking
 *   method): a level-1 refresh of that app (Argo CD's CompareWithRecent for a managed resource);
 * - an object with ownerReferences: its owners are looked up by group, kind and name in the object's own
 *   namespace (`lookup`, the cluster's live cache), and theirs in turn (a cycle ends the walk), until an
 *   owner without ownerReferences whose tracking names an app (`getAppRecursive`; the first owner leading
 *   to one wins; its own tracking does not count, as Argo CD gives no app to an object with owners): a
 *   level-0 refresh of that app (Argo CD's ComparisonWithNothing: the tree and summary only). A namespaced
 *   object's cluster-scoped owner is not looked up (Argo CD searches the object's namespace only);
 * - a namespaced object no app claims either way: the apps that watch orphaned resources in that
 *   namespace (their AppProject sets `orphanedResources`: Argo CD's orphanedIndex), level 1.
 * An app the object is itself gets nothing (an Application managing itself: Argo CD's isSelfReferencedApp,
 * which prevents an endless loop).
 * A MODIFIED that only changed bookkeeping (`metadata.resourceVersion`, `managedFields`) is dropped, as
 * Argo CD's skipResourceUpdate does.
 * Events are batched: keys collect for `batchMs` on the loop's clock with the highest level asked, then
 * each is requested once (the queue coalesces anyway; the batch saves the work per event of a burst).
 */
import { isDeepStrictEqual } from 'node:util';
import { owningApp } from '../../cluster/index.js';
import type { CacheEvent, KubeObject, TrackingOptions } from '../../cluster/index.js';
import type { Clock, TimerHandle } from '../../common/index.js';
import { formatKey, parseApiVersion } from '../../common/index.js';
import type { ResourceKey } from '../../common/index.js';

/** The index key of a resource on a cluster. */
export const resourceIndexKey = (
  cluster: string,
  r: { group: string; kind: string; namespace: string; name: string },
): string => `${cluster}|${formatKey(r)}`;

function withoutBookkeeping(o: KubeObject): KubeObject {
  const meta = o.metadata;
  if (!meta) return o;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { resourceVersion, managedFields, ...rest } = meta;
  return { ...o, metadata: rest };
}

/** True when `a` and `b` differ only in resourceVersion and managedFields. */
export function onlyBookkeeping(a: KubeObject, b: KubeObject): boolean {
  return isDeepStrictEqual(withoutBookkeeping(a), withoutBookkeeping(b));
}

/** Whether `key` names the Application `app` itself (Argo CD's isSelfReferencedApp). */
export function isApplicationItself(
  app: { name: string; namespace?: string | undefined } | undefined,
  argocdNamespace: string,
  key: { group: string; kind: string; namespace: string; name: string },
): boolean {
  return (
    app !== undefined &&
    key.group === 'argoproj.io' &&
    key.kind === 'Application' &&
    key.name === app.name &&
    key.namespace === (app.namespace ?? argocdNamespace)
  );
}

export interface LiveRouterOptions {
  tracking: TrackingOptions;
  clock: Clock;
  batchMs: number;
  /** The app key of an instance name (tracking), if the loop knows it. */
  keyOfInstance: (instance: string) => string | undefined;
  /** The app keys whose last comparison listed this index key. */
  keysOfResource: (indexKey: string) => Iterable<string>;
  /** The app keys watching orphaned resources of `namespace` on `cluster`. */
  orphanWatchers: (cluster: string, namespace: string) => Iterable<string>;
  /** Whether the object at `key` is the Application `appKey` itself. */
  isSelf: (appKey: string, key: { group: string; kind: string; namespace: string; name: string }) => boolean;
  /** Called once per batch with the keys touched and the level each asks (0 or 1). */
  flush: (keys: Map<string, 0 | 1>) => void;
}

/** A cluster's objects by key (its live cache), for the walk up owner references. */
export type ObjectLookup = (key: ResourceKey) => KubeObject | undefined;

export class LiveRouter {
  readonly #o: LiveRouterOptions;
  #dirty = new Map<string, 0 | 1>();
  #timer: TimerHandle | undefined;
  #stopped = false;
  /** Events routed to at least one app (for tests and metrics). */
  routed = 0;

  constructor(options: LiveRouterOptions) {
    this.#o = options;
  }

  /**
   * The handler of one cluster's live-cache events; `lookup` reads that cluster's objects by key (the
   * walk up owner references; without it, objects with owners route nowhere).
   */
  handler(cluster: string, lookup?: ObjectLookup): (e: CacheEvent) => void {
    return (e) => this.#onEvent(cluster, e, lookup);
  }

  #onEvent(cluster: string, e: CacheEvent, lookup: ObjectLookup | undefined): void {
    if (this.#stopped) return;
    if (e.type === 'MODIFIED' && e.old && onlyBookkeeping(e.old, e.object)) return;
    const o = this.#o;
    const keys = new Map<string, 0 | 1>();
    const add = (key: string | undefined, level: 0 | 1): void => {
      if (key !== undefined && (keys.get(key) ?? -1) < level) keys.set(key, level);
    };
    for (const obj of e.old ? [e.object, e.old] : [e.object]) {
      if (!obj.metadata?.ownerReferences?.length) {
        const instance = owningApp(obj, o.tracking);
        if (instance !== undefined) add(o.keyOfInstance(instance), 1);
      } else if (lookup) {
        const instance = ownerApp(obj, lookup, o.tracking, new Set([formatKey(e.key)]));
        if (instance !== undefined) add(o.keyOfInstance(instance), 0);
      }
    }
    for (const key of o.keysOfResource(resourceIndexKey(cluster, e.key))) add(key, 1);
    if (keys.size === 0 && e.key.namespace)
      for (const key of o.orphanWatchers(cluster, e.key.namespace)) add(key, 1);
    for (const key of keys.keys()) if (o.isSelf(key, e.key)) keys.delete(key);
    if (keys.size === 0) return;
    this.routed++;
    for (const [key, level] of keys) if ((this.#dirty.get(key) ?? -1) < level) this.#dirty.set(key, level);
    this.#timer ??= o.clock.setTimeout(() => this.#flush(), o.batchMs);
  }

  #flush(): void {
    this.#timer = undefined;
    const keys = this.#dirty;
    this.#dirty = new Map();
    if (!this.#stopped && keys.size > 0) this.#o.flush(keys);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#dirty.clear();
  }
}

/**
 * The app whose tree `obj` hangs in through its owners (Argo CD's getAppRecursive, see the header): the
 * instance named by the tracking of the first owner chain that ends in a tracked object without owners.
 */
export function ownerApp(
  obj: KubeObject,
  lookup: ObjectLookup,
  tracking: TrackingOptions,
  visited: Set<string>,
): string | undefined {
  const namespace = obj.metadata?.namespace ?? '';
  for (const ref of obj.metadata?.ownerReferences ?? []) {
    const key = { group: parseApiVersion(ref.apiVersion).group, kind: ref.kind, namespace, name: ref.name };
    const id = formatKey(key);
    if (visited.has(id)) continue; // a cycle
    const owner = lookup(key);
    if (!owner) continue;
    const branch = new Set(visited).add(id);
    if (!owner.metadata?.ownerReferences?.length) {
      const instance = owningApp(owner, tracking);
      if (instance !== undefined) return instance;
      continue;
    }
    const instance = ownerApp(owner, lookup, tracking, branch);
    if (instance !== undefined) return instance;
  }
  return undefined;
}

/** Which app a live object belongs to: by instance name, and by the resources of each app's last comparison. */
export class AppIndex {
  readonly #byResource = new Map<string, Set<string>>();
  readonly #byInstance = new Map<string, string>();
  readonly #resources = new Map<string, string[]>();

  keyOfInstance(instance: string): string | undefined {
    return this.#byInstance.get(instance);
  }

  keysOfResource(indexKey: string): Iterable<string> {
    return this.#byResource.get(indexKey) ?? [];
  }

  setInstance(instance: string, key: string): void {
    this.#byInstance.set(instance, key);
  }

  /** The app's resources now (index keys); [] forgets them. */
  setResources(key: string, indexKeys: string[]): void {
    for (const k of this.#resources.get(key) ?? []) {
      const set = this.#byResource.get(k);
      set?.delete(key);
      if (set?.size === 0) this.#byResource.delete(k);
    }
    if (indexKeys.length === 0) this.#resources.delete(key);
    else this.#resources.set(key, indexKeys);
    for (const k of indexKeys) {
      let set = this.#byResource.get(k);
      if (!set) this.#byResource.set(k, (set = new Set()));
      set.add(key);
    }
  }

  remove(key: string, instance: string): void {
    this.setResources(key, []);
    if (this.#byInstance.get(instance) === key) this.#byInstance.delete(instance);
  }
}
