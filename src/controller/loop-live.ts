/**
 * Live-cache events → app refreshes, for the continuous loop (Argo CD's `handleObjectUpdated` →
 * `requestAppRefresh`, controller/appcontroller.go; the event handler of controller/cache/cache.go).
 *
 * Which apps an event touches: the app the object's tracking names (its instance name; also the app the
 * previous state named, when a MODIFIED changed it), and every app whose last comparison listed the object
 * (a target not yet tracked, a resource of another tracking method). A namespaced object no app claims
 * refreshes the apps that watch orphaned resources in that namespace (their AppProject sets
 * `orphanedResources`: Argo CD's orphanedIndex). Each gets a level-1 refresh (Argo CD's CompareWithRecent
 * for a managed resource), except an app the object is itself (an Application managing itself: Argo CD's
 * isSelfReferencedApp, which prevents an endless loop). Objects only related through ownerReferences (a Deployment's
 * ReplicaSets and Pods) are not routed: Argo CD gives those level 0 (resource tree only), which this loop
 * has no use for; their owner's own status events carry the health changes.
 * A MODIFIED that only changed bookkeeping (`metadata.resourceVersion`, `managedFields`) is dropped, as
 * Argo CD's skipResourceUpdate does.
 * Events are batched: keys collect for `batchMs` on the loop's clock, then each is requested once (the
 * queue coalesces anyway; the batch saves the work per event of a burst).
 */
import { isDeepStrictEqual } from 'node:util';
import { owningApp } from '../cluster/index.js';
import type { CacheEvent, KubeObject, TrackingOptions } from '../cluster/index.js';
import type { Clock, TimerHandle } from '../common/index.js';
import { formatKey } from '../common/index.js';

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
  /** Called once per batch with the keys touched. */
  flush: (keys: Set<string>) => void;
}

export class LiveRouter {
  readonly #o: LiveRouterOptions;
  #dirty = new Set<string>();
  #timer: TimerHandle | undefined;
  #stopped = false;
  /** Events routed to at least one app (for tests and metrics). */
  routed = 0;

  constructor(options: LiveRouterOptions) {
    this.#o = options;
  }

  /** The handler of one cluster's live-cache events. */
  handler(cluster: string): (e: CacheEvent) => void {
    return (e) => this.#onEvent(cluster, e);
  }

  #onEvent(cluster: string, e: CacheEvent): void {
    if (this.#stopped) return;
    if (e.type === 'MODIFIED' && e.old && onlyBookkeeping(e.old, e.object)) return;
    const o = this.#o;
    const keys = new Set<string>();
    const add = (instance: string | undefined): void => {
      const key = instance === undefined ? undefined : o.keyOfInstance(instance);
      if (key) keys.add(key);
    };
    add(owningApp(e.object, o.tracking));
    if (e.old) add(owningApp(e.old, o.tracking));
    for (const key of o.keysOfResource(resourceIndexKey(cluster, e.key))) keys.add(key);
    if (keys.size === 0 && e.key.namespace)
      for (const key of o.orphanWatchers(cluster, e.key.namespace)) keys.add(key);
    for (const key of keys) if (o.isSelf(key, e.key)) keys.delete(key);
    if (keys.size === 0) return;
    this.routed++;
    for (const key of keys) this.#dirty.add(key);
    this.#timer ??= o.clock.setTimeout(() => this.#flush(), o.batchMs);
  }

  #flush(): void {
    this.#timer = undefined;
    const keys = this.#dirty;
    this.#dirty = new Set();
    if (!this.#stopped && keys.size > 0) this.#o.flush(keys);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#dirty.clear();
  }
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
