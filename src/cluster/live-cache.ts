/**
 * `LiveStateCache`: the one reader of live state during a run (controller-runtime's cache, Argo CD's
 * cluster cache). For each resource type and namespace a run needs it lists once, then watches, and keeps
 * the objects indexed by resource key (group/kind/namespace/name) and by owning app (resource tracking,
 * see tracking.ts).
 *
 * Scope: `namespaces`, `labelSelector`, `transform`, `manifests`, per-kind overrides and `namespaceMode`
 * (per namespace or cluster-wide) are live-cache-options.ts; a cluster-wide list answered 403 (namespace-scoped RBAC)
 * in 'auto' mode falls back to per-namespace lists (`#addScopes`).
 * Lists of different scopes run in parallel (`listConcurrency`, default 8), paginated (`pageSize`, 500).
 *
 * Lifecycle: `start(signal)` resolves once every scope has listed (synced) and leaves the watches running
 * until `stop()` or the signal aborts (with `watch: false`, none: the state as listed); it rejects if an
 * initial list fails. `addResources` adds types
 * later (a CRD created mid-run) and resolves when they are synced.
 * Kinds that go away (live-cache-kinds.ts): a 404 Not Found on a kind's list or watch refreshes
 * `discovery`; when it no longer serves the kind at that version, the kind is dropped (`dropKind`: its
 * watches stop, its objects leave the store with DELETED events); when it still does, the scope is listed
 * and watched again. Every other kind goes on; it never fails `start`. `onKindChange` subscribers hear of
 * kinds added and dropped; `kindsSettled()` resolves once those discovery refreshes are done.
 * Subscribers (`onEvent`) see every change (the initial list as ADDED) synchronously; `waitFor` resolves
 * when an object satisfies a predicate (live-cache-wait.ts). `managedLive(app, targets)` answers "which
 * live objects does this app manage" for the comparison (live-cache-managed.ts). The list and watch loops
 * are live-cache-list.ts and live-cache-watch.ts, the store live-cache-store.ts. `childrenOf(uid)` answers
 * the objects that name an owner (the resource tree's edges, resource-tree.ts).
 * Manifests (`manifests: 'tracked'`, Argo CD's cluster cache): an object no app tracks, other than a
 * CustomResourceDefinition, is stored as a stub (transform.ts `stubOf`: its metadata only) unless a target
 * named its key; `managedLive` reads such a target with a GET, puts the answer in place of the stub of
 * the same version, and from then on the key is stored in full (`#pinned`, until the object is deleted),
 * so sync reads it from here.
 */
import { setMaxListeners } from 'node:events';
import { ApiError } from './errors.js';
import { KindLifecycle } from './live-cache-kinds.js';
import type { KindChange } from './live-cache-kinds.js';
import { listScope } from './live-cache-list.js';
import { managedLive } from './live-cache-managed.js';
import type { ManagedTarget } from './live-cache-managed.js';
import { scopesFor, transformFor } from './live-cache-options.js';
import type { LiveCacheOptions } from './live-cache-options.js';
import type { LoopContext, LoopStats, Scope } from './live-cache-scope.js';
import { LiveStore } from './live-cache-store.js';
import type { CacheEventHandler } from './live-cache-store.js';
import { raceAbort, waitForObject } from './live-cache-wait.js';
import { watchScope } from './live-cache-watch.js';
import { owningApp } from './tracking.js';
import { isStub, stubOf } from './transform.js';
import { formatKey, groupKind, keyOf } from './types.js';
import type { KubeObject, ResourceInfo, ResourceKey } from './types.js';
import { isNotFound } from './errors.js';
import { realClock } from '../queue/index.js';
import { oneLine } from '../common/index.js';

/** apiextensions.k8s.io CustomResourceDefinition: kept in full (the schemas of custom kinds). */
function isCrd(obj: KubeObject): boolean {
  return (
    obj.kind === 'CustomResourceDefinition' && (obj.apiVersion ?? '').startsWith('apiextensions.k8s.io/')
  );
}

export interface LiveCacheStats extends LoopStats {
  objects: number;
  scopes: number;
  events: number;
  /** Milliseconds from `start` until every scope had listed. */
  syncMs: number | undefined;
}

export class LiveStateCache {
  readonly #options: LiveCacheOptions;
  readonly #store: LiveStore;
  readonly #ctx: LoopContext;
  readonly #abort = new AbortController();
  readonly #scopes = new Map<string, Scope>();
  readonly #watches: Promise<void>[] = [];
  readonly #lostHandlers = new Set<() => void>();
  readonly #kinds: KindLifecycle;
  #started = false;
  #synced: Promise<void> | undefined;
  #syncMs: number | undefined;
  /** Keys a target named (`managedLive`): stored in full even when no app tracks them. */
  readonly #pinned = new Set<string>();

  constructor(options: LiveCacheOptions) {
    this.#options = options;
    setMaxListeners(0, this.#abort.signal); // one listener per watch and per pending request
    const tracking = options.tracking ?? {};
    const warn = options.onWarning;
    const appOf = (obj: KubeObject): string | undefined => owningApp(obj, tracking);
    this.#store = new LiveStore(
      appOf,
      (err, e) => warn?.(`live cache subscriber failed on ${e.type} ${formatKey(e.key)}: ${oneLine(err)}`),
      options.manifests === 'tracked'
        ? (obj) =>
            appOf(obj) !== undefined || isCrd(obj) || this.#pinned.has(formatKey(keyOf(obj)))
              ? obj
              : stubOf(obj)
        : undefined,
    );
    // A pinned key is let go when its object is deleted: a long-running cache does not collect the keys
    // of every object a target ever named.
    if (options.manifests === 'tracked')
      this.#store.subscribe((e) => {
        if (e.type === 'DELETED') this.#pinned.delete(formatKey(e.key));
      });
    this.#ctx = {
      client: options.client,
      store: this.#store,
      clock: options.clock ?? realClock,
      pageSize: options.pageSize ?? 500,
      backoff: { initialMs: options.backoff?.initialMs ?? 200, maxMs: options.backoff?.maxMs ?? 10_000 },
      watchTimeoutSeconds: options.watchTimeoutSeconds,
      watchIdleMs: options.watchIdleMs,
      random: options.random ?? Math.random,
      stats: { lists: 0, listPages: 0, relists: 0, watchesOpened: 0, reconnects: 0, watchErrors: 0 },
      onWarning: (scope, message) => warn?.(`${scope.id}: ${message}`),
      onGone: (scope, err) => this.#kinds.notServed(scope, err),
      onLostChange: () => {
        for (const h of [...this.#lostHandlers]) h();
      },
    };
    this.#kinds = new KindLifecycle({
      scopes: this.#scopes,
      store: this.#store,
      ctx: this.#ctx,
      signal: this.#abort.signal,
      watches: this.#watches,
      options,
      notifyLost: () => {
        for (const h of [...this.#lostHandlers]) h();
      },
    });
  }

  /** Lists every scope (in parallel, bounded), then keeps watching; resolves when synced. */
  start(signal?: AbortSignal): Promise<void> {
    if (this.#started) return this.waitForSync(signal);
    this.#started = true;
    signal?.addEventListener('abort', () => this.stop(), { once: true });
    if (signal?.aborted) this.stop();
    const t0 = this.#ctx.clock.now();
    this.#synced = this.#addScopes(this.#options.resources, this.#options.onSyncProgress).then(() => {
      this.#syncMs = this.#ctx.clock.now() - t0;
    });
    this.#synced.catch(() => this.stop());
    return this.waitForSync(signal);
  }

  /** Adds resource types after start (e.g. a CRD created mid-run); resolves when they are synced. */
  async addResources(resources: ResourceInfo[], signal?: AbortSignal): Promise<void> {
    const fresh = resources.filter((r) => !this.#hasResource(r));
    await raceAbort(this.#addScopes(fresh), signal);
    for (const r of fresh) {
      if (this.#hasResource(r)) this.#kinds.emitKind({ type: 'added', group: r.group, kind: r.kind });
    }
  }

  /**
   * Stops holding a kind (live-cache-kinds.ts): ends its lists and watches, removes its objects (DELETED
   * events), refreshes discovery and tells `onKindChange` subscribers. False when the kind was not held.
   */
  dropKind(gk: { group: string; kind: string }, reason: string, opts: { refreshed?: boolean } = {}): boolean {
    return this.#kinds.dropKind(gk, reason, opts);
  }

  /** Subscribes to kinds added (`addResources`) and dropped after start; returns the unsubscribe. */
  onKindChange(handler: (change: KindChange) => void): () => void {
    return this.#kinds.onKindChange(handler);
  }

  /** Resolves once the discovery refreshes that dropped kinds started have settled. */
  kindsSettled(): Promise<void> {
    return this.#kinds.kindsSettled();
  }

  /** Resolves once the initial lists are done (rejects with their error, or when `signal` aborts). */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (!this.#synced) return Promise.reject(new Error('live cache: failed to wait for sync: not started'));
    return raceAbort(this.#synced, signal);
  }

  get synced(): boolean {
    return this.#syncMs !== undefined;
  }

  /** Stops every watch. Idempotent; the stored objects stay readable. */
  stop(): void {
    this.#abort.abort(new Error('live cache stopped'));
  }

  /** Resolves when every watch loop has ended (after `stop`). */
  async stopped(): Promise<void> {
    await Promise.allSettled(this.#watches);
  }

  get(key: ResourceKey): KubeObject | undefined {
    return this.#store.get(key);
  }

  /** Objects of a kind, optionally in one namespace. */
  list(group: string, kind: string, namespace?: string): KubeObject[] {
    return this.#store.byGroupKind(group, kind, namespace);
  }

  /** Objects one of whose ownerReferences names `uid` (the edges of resource-tree.ts). */
  childrenOf(uid: string): KubeObject[] {
    return this.#store.childrenOf(uid);
  }

  /** Objects whose tracking names `app` (the instance name). */
  byApp(app: string): KubeObject[] {
    return this.#store.byApp(app);
  }

  all(): KubeObject[] {
    return this.#store.all();
  }

  /** Whether `info`'s group/kind is cached. */
  watches(gk: { group: string; kind: string }): boolean {
    return [...this.#scopes.values()].some((s) => s.info.group === gk.group && s.info.kind === gk.kind);
  }

  /** Whether the cache holds every object that could have `key` (its kind and namespace are in scope). */
  covers(key: ResourceKey): boolean {
    return this.#coveringScope(key) !== undefined;
  }

  /**
   * Why the cache cannot follow `key` now (one line naming the scope), or undefined when it can or does
   * not cover the key: the watch of the scope covering it is lost (failing to reopen; see
   * live-cache-watch.ts). Something waiting for that key to change would wait forever, so it should fail
   * with this reason instead. `onLostChange` subscribers hear when a watch is lost or back.
   */
  lost(key: ResourceKey): string | undefined {
    const scope = this.#coveringScope(key);
    return scope?.lost === undefined ? undefined : `${scope.id}: ${scope.lost}`;
  }

  /** Subscribes to watches lost and back (`lost` answers differently); returns the unsubscribe. */
  onLostChange(handler: () => void): () => void {
    this.#lostHandlers.add(handler);
    return () => this.#lostHandlers.delete(handler);
  }

  #coveringScope(key: ResourceKey): Scope | undefined {
    for (const s of this.#scopes.values()) {
      if (s.info.group !== key.group || s.info.kind !== key.kind || s.labelSelector) continue;
      if (!s.info.namespaced) return s;
      if (
        s.namespace !== undefined
          ? s.namespace === key.namespace
          : !s.namespaces || s.namespaces.has(key.namespace)
      ) {
        return s;
      }
    }
    return undefined;
  }

  /**
   * The live objects an app manages, keyed by `formatKey` (live-cache-managed.ts): its tracked objects
   * without ownerReferences plus each target's live object, read directly where the cache cannot answer.
   */
  managedLive(
    app: string,
    targets: ReadonlyArray<ResourceKey | ManagedTarget>,
    signal?: AbortSignal,
  ): Promise<Map<string, KubeObject>> {
    const o = this.#options;
    const source = {
      byApp: (name: string) => this.byApp(name),
      covers: (key: ResourceKey) => this.covers(key),
      get: (key: ResourceKey) => this.get(key),
      infoOf: (key: ResourceKey) => this.#coveringScope(key)?.info,
      fill: (obj: KubeObject) => {
        this.#pinned.add(formatKey(keyOf(obj)));
        this.#store.fill(obj, isStub);
      },
      client: o.client,
      discovery: o.discovery,
      transformFor: (gk: { group: string; kind: string }) => transformFor(o, gk),
    };
    return managedLive(source, app, targets, signal);
  }

  onEvent(handler: CacheEventHandler): () => void {
    return this.#store.subscribe(handler);
  }

  /**
   * Resolves with the object at `key` (undefined when absent) as soon as `predicate` holds for it, checking
   * now and after every change of that key. Rejects when `signal` aborts.
   */
  waitFor(
    key: ResourceKey,
    predicate: (obj: KubeObject | undefined) => boolean,
    signal?: AbortSignal,
  ): Promise<KubeObject | undefined> {
    return waitForObject(this, key, predicate, signal);
  }

  stats(): LiveCacheStats {
    return {
      ...this.#ctx.stats,
      objects: this.#store.size,
      scopes: this.#scopes.size,
      events: this.#store.events,
      syncMs: this.#syncMs,
    };
  }

  #hasResource(r: ResourceInfo): boolean {
    return [...this.#scopes.values()].some((s) => s.info.group === r.group && s.info.kind === r.kind);
  }

  /** Builds the scopes of `resources`, lists them (bounded parallelism), then starts their watches. */
  async #addScopes(
    resources: ResourceInfo[],
    onListed?: (listed: number, scopes: number) => void,
  ): Promise<void> {
    const scopes = resources.flatMap((r) => scopesFor(this.#options, r));
    let listed = 0;
    for (const s of scopes) this.#scopes.set(s.id, s);
    const stopped = this.#abort.signal;
    let next = 0;
    const lister = async (): Promise<void> => {
      for (let s = scopes[next++]; s; s = scopes[next++]) {
        stopped.throwIfAborted();
        if (this.#scopes.get(s.id) !== s) {
          onListed?.(++listed, scopes.length); // its kind was dropped meanwhile
          continue;
        }
        const signal = this.#kinds.kindSignal(s.info);
        try {
          await listScope(this.#ctx, s, signal);
        } catch (err) {
          if (!stopped.aborted && (signal.aborted || isNotFound(err))) {
            // Not served (any more), unless discovery says otherwise: go on with the others.
            if (!signal.aborted) this.#kinds.notServed(s, err);
            onListed?.(++listed, scopes.length);
            continue;
          }
          if (!(
            s.namespaces &&
            this.#options.namespaceMode !== 'cluster' &&
            err instanceof ApiError &&
            err.code === 403
          )) {
            throw err;
          }
          // Not allowed cluster-wide (namespace-scoped RBAC): fall back to one list+watch per namespace.
          this.#ctx.onWarning(s, 'forbidden cluster-wide; listing per namespace');
          this.#scopes.delete(s.id);
          const gk = groupKind(s.info);
          for (const ns of s.namespaces) {
            const split: Scope = { ...s, id: `${gk}@${ns}`, namespace: ns, namespaces: undefined };
            this.#scopes.set(split.id, split);
            scopes.push(split);
          }
          continue;
        }
        if (this.#options.watch !== false) this.#watches.push(watchScope(this.#ctx, s, signal));
        onListed?.(++listed, scopes.length);
      }
    };
    const n = Math.max(1, Math.min(this.#options.listConcurrency ?? 8, scopes.length));
    await Promise.all(Array.from({ length: n }, lister));
    await this.kindsSettled();
  }
}
