/**
 * The live cache's store: objects by group/kind then namespace/name (so a kind's objects are one map), with
 * an index by owning app, and change events for subscribers. Only the list and watch loops write to it.
 *
 * Invariants: each resource key maps to at most one object; an object is in the app index under `a` iff
 * `appOf(obj) === a` (appOf is a pure function of the object). Events are emitted after the store changed,
 * synchronously, in the order of the changes; a subscriber that throws does not stop the others, and its
 * error goes to `onSubscriberError` (the cache logs it), never dropped.
 * `shape` (optional) decides how an object written by the loops is stored (the cache's stubs for objects
 * no app tracks, transform.ts `stubOf`); `fill` puts a read object in place of the stub of the same
 * version, without an event (nothing changed on the server). `appOf` must answer the same for an object
 * and its stub (a stub keeps labels and tracking annotations), so `fill` leaves the app index as it is.
 * Owner index (`childrenOf(uid)`): the objects whose `metadata.ownerReferences` name that uid, the edges
 * of the resource tree (resource-tree.ts; gitops-engine's `parentUIDToChildren`). Invariant: obj is in
 * the set of uid u iff obj is stored and one of its ownerReferences has uid u. Only objects with owners
 * cost an entry.
 */
import { groupKind, keyOf } from './types.js';
import type { KubeObject, ResourceKey } from './types.js';

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent {
  type: CacheEventType;
  key: ResourceKey;
  /** The object now (for DELETED: the last known state). */
  object: KubeObject;
  /** The previous state, for MODIFIED. */
  old?: KubeObject;
}

export type CacheEventHandler = (event: CacheEvent) => void;

/** Which stored objects a relist replaces: one kind, optionally limited to some namespaces. */
export interface StoreScope {
  group: string;
  kind: string;
  /** Keep only objects this returns true for (the scope's namespaces); undefined: every object of the kind. */
  contains?: (obj: KubeObject) => boolean;
}

export class LiveStore {
  /** Objects by "group/Kind", then by "namespace/name". Held compactly: the cache may hold 100,000s. */
  #kinds = new Map<string, Map<string, KubeObject>>();
  /** Objects by owning app. Invariant: obj is in #byApp.get(a) iff appOf(obj) === a and obj is stored. */
  #byApp = new Map<string, Set<KubeObject>>();
  /** Objects by the uid of each of their owners. Invariant: see the header. */
  #children = new Map<string, Set<KubeObject>>();
  #size = 0;
  #handlers = new Set<CacheEventHandler>();
  readonly #appOf: (obj: KubeObject) => string | undefined;
  events = 0;

  readonly #onSubscriberError: ((err: unknown, event: CacheEvent) => void) | undefined;
  readonly #shape: (obj: KubeObject) => KubeObject;

  constructor(
    appOf: (obj: KubeObject) => string | undefined,
    onSubscriberError?: (err: unknown, event: CacheEvent) => void,
    shape: (obj: KubeObject) => KubeObject = (obj) => obj,
  ) {
    this.#appOf = appOf;
    this.#onSubscriberError = onSubscriberError;
    this.#shape = shape;
  }

  get size(): number {
    return this.#size;
  }

  subscribe(handler: CacheEventHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  get(key: ResourceKey): KubeObject | undefined {
    return this.#kinds.get(groupKind(key))?.get(`${key.namespace}/${key.name}`);
  }

  byApp(app: string): KubeObject[] {
    return [...(this.#byApp.get(app) ?? [])];
  }

  /** The stored objects one of whose ownerReferences names `uid` (see the header). */
  childrenOf(uid: string): KubeObject[] {
    return [...(this.#children.get(uid) ?? [])];
  }

  byGroupKind(group: string, kind: string, namespace?: string): KubeObject[] {
    const all = [...(this.#kinds.get(groupKind({ group, kind }))?.values() ?? [])];
    return namespace === undefined ? all : all.filter((o) => (o.metadata?.namespace ?? '') === namespace);
  }

  all(): KubeObject[] {
    return [...this.#kinds.values()].flatMap((m) => [...m.values()]);
  }

  /** Stores `obj`; emits ADDED, or MODIFIED when its resourceVersion changed (same version: no-op). */
  upsert(written: KubeObject): void {
    const key = keyOf(written);
    const gk = groupKind(key);
    let objects = this.#kinds.get(gk);
    if (!objects) this.#kinds.set(gk, (objects = new Map()));
    const nn = `${key.namespace}/${key.name}`;
    const prev = objects.get(nn);
    const rv = written.metadata?.resourceVersion;
    if (prev && rv && prev.metadata?.resourceVersion === rv) return; // seen again (relist, replayed event)
    const obj = this.#shape(written);
    if (prev) this.#unindex(prev);
    else this.#size++;
    objects.set(nn, obj);
    this.#index(obj);
    this.#emit(
      prev ? { type: 'MODIFIED', key, object: obj, old: prev } : { type: 'ADDED', key, object: obj },
    );
  }

  /**
   * Puts `obj` (read from the server) in place of the stored object of its key when that is `stub` at the
   * same resourceVersion; no event, index unchanged (see the header). Returns whether it did.
   */
  fill(obj: KubeObject, isStub: (stored: KubeObject) => boolean): boolean {
    const key = keyOf(obj);
    const objects = this.#kinds.get(groupKind(key));
    const nn = `${key.namespace}/${key.name}`;
    const prev = objects?.get(nn);
    const rv = obj.metadata?.resourceVersion;
    if (!objects || !prev || !isStub(prev) || !rv || prev.metadata?.resourceVersion !== rv) return false;
    objects.set(nn, obj);
    for (const uid of ownerUids(prev)) {
      const set = this.#children.get(uid);
      set?.delete(prev);
      set?.add(obj);
    }
    return true;
  }

  /** Removes the object with `obj`'s key; emits DELETED (with the last stored state) if it was stored. */
  remove(obj: KubeObject): void {
    const key = keyOf(obj);
    const objects = this.#kinds.get(groupKind(key));
    const nn = `${key.namespace}/${key.name}`;
    const prev = objects?.get(nn);
    if (!objects || !prev) return;
    objects.delete(nn);
    this.#size--;
    this.#unindex(prev);
    this.#emit({ type: 'DELETED', key, object: prev });
  }

  /** Makes `scope` hold exactly `objs` (a relist): upserts them, deletes the scope's other objects. */
  replace(scope: StoreScope, objs: KubeObject[]): void {
    const keep = new Set(objs.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`));
    const objects = this.#kinds.get(groupKind(scope));
    for (const [nn, o] of [...(objects ?? [])]) {
      if (!keep.has(nn) && (!scope.contains || scope.contains(o))) this.remove(o);
    }
    for (const o of objs) this.upsert(o);
  }

  #index(obj: KubeObject): void {
    for (const uid of ownerUids(obj)) {
      let children = this.#children.get(uid);
      if (!children) this.#children.set(uid, (children = new Set()));
      children.add(obj);
    }
    const app = this.#appOf(obj);
    if (app === undefined) return;
    let set = this.#byApp.get(app);
    if (!set) this.#byApp.set(app, (set = new Set()));
    set.add(obj);
  }

  #unindex(obj: KubeObject): void {
    for (const uid of ownerUids(obj)) {
      const children = this.#children.get(uid);
      children?.delete(obj);
      if (children?.size === 0) this.#children.delete(uid);
    }
    const app = this.#appOf(obj);
    if (app === undefined) return;
    const set = this.#byApp.get(app);
    set?.delete(obj);
    if (set?.size === 0) this.#byApp.delete(app);
  }

  #emit(event: CacheEvent): void {
    this.events++;
    for (const h of this.#handlers) {
      try {
        h(event);
      } catch (err) {
        // A failing subscriber must not break the cache or the other subscribers; it is reported.
        this.#onSubscriberError?.(err, event);
      }
    }
  }
}

/** The uids `obj`'s ownerReferences name (Kubernetes requires one on each reference). */
function ownerUids(obj: KubeObject): string[] {
  const refs = obj.metadata?.ownerReferences;
  if (!refs?.length) return [];
  const uids: string[] = [];
  for (const r of refs) {
    const uid = (r as { uid?: unknown } | undefined)?.uid;
    if (typeof uid === 'string' && uid !== '') uids.push(uid);
  }
  return uids;
}
