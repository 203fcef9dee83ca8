/**
 * `ClusterState`: what the refresh knows about one destination cluster during a run: its connection, one
 * shared live cache (started on first use, by the first app that needs it) and a memo of served kinds.
 *
 * Live cache scope: every served kind with list+watch verbs, at its preferred version, except the
 * exclusions (exclusions.ts, from argocd-cm when read), in the destination namespaces of the run's apps on this cluster (plus every
 * cluster-scoped object). So requests per run are kinds (x namespaces when there are at most 4), never
 * per resource. Objects outside those namespaces are fetched by key when a target names them (one GET
 * each); extra (prune-candidate) resources are only found inside the scope.
 * Transform: `metadata.managedFields` is cut down to the entries of the managers the comparison reads (our
 * own, and `managedFieldsManagers` of ignoreDifferences rules); everything else is dropped, except on
 * objects one of `appliers` server-side applied (an Apply entry): structured-merge diff needs every
 * entry there, as a field we applied and Git dropped is pruned only when no other manager owns it.
 * Manifests (`manifests: 'tracked'`, src/cluster live-cache.ts): only objects an app tracks and CRDs are
 * kept whole; any other object is a stub of its metadata (Pods, ReplicaSets, Events, Secrets of other
 * tools: most of a namespace), and a target naming one is read with a GET, as Argo CD's cluster cache
 * does (docs/diff.md "What the live cache keeps").
 * Schema facts (`schemas()`): Kubernetes' published schemas plus the CustomResourceDefinitions in the live
 * cache, kept current from its events (a CRD created or deleted during the run), with argocd-cm's
 * knownTypeFields: the lookup the diff reads list shapes of custom resources from, as Argo CD's
 * structured-merge and server-side diff read the cluster's OpenAPI (CRDs included). CRDs left out of the
 * cache by resource exclusions are not read: their kinds' lists are atomic.
 * Kinds that come and go (gitops-engine pkg/cache/cluster.go; docs/diff.md "Kinds that come and go"):
 * - a kind the live cache drops (its list or watch answered 404; its CRD deleted, seen through the cache's
 *   CRD events) leaves `cachedVersion`, and `kind()` answers from the refreshed discovery, so its targets
 *   are UnknownKind with `droppedReason` saying why; apps using other kinds are untouched;
 * - a kind dropped while its CRD still serves it at another version (a CRD update that stopped serving the
 *   cached version) is watched again at the new preferred version once discovery is refreshed;
 * - a CRD that becomes Established during the run, or a kind that `kind()` found only by refreshing
 *   discovery (created since the discovery cache was written), is added to the live cache (every served
 *   kind not yet watched, as Argo CD's startMissingWatches), so its objects are found as extras too.
 * `kind()` first waits for those changes in flight (`settled()`).
 * A cluster Secret's scope (`scope`: its `namespaces` and `clusterResources`, gitops-engine
 * pkg/cache/cluster.go processApi and GetManagedLiveObjs): with namespaces set, namespaced kinds are
 * listed and watched in each of those namespaces (never cluster-wide: the Secret's credentials may only
 * reach those), cluster-scoped kinds only when clusterResources is true, and `checkScope` refuses an app
 * whose targets leave the scope, with Argo CD's messages.
 */
import type {
  ClusterConnection,
  KubeObject,
  LiveStateCache,
  ResourceInfo,
  Transform,
} from '../../cluster/index.js';
import { toResourceInfo } from '../../cluster/index.js';
import type {
  ClusterScope,
  DiscoveredResource,
  KindChange,
  ResourceKey,
  TrackingOptions,
} from '../../cluster/index.js';
import { GitopsError, oneLine } from '../../common/index.js';
import { SchemaCatalog, schemaLookup } from '../../schema/index.js';
import type { KnownTypeField, SchemaLookup } from '../../schema/index.js';
import { schemaDigestOf } from './disk-memo.js';
import { ResourceFilter } from './exclusions.js';
import type { RunEventHandler } from './types.js';

export interface ClusterStateOptions {
  conn: ClusterConnection;
  /** Destination namespaces of the apps on this cluster. */
  namespaces: readonly string[];
  /** A cluster Secret's namespaces/clusterResources (see the header); absent: the whole cluster. */
  scope?: ClusterScope | undefined;
  tracking: TrackingOptions;
  /** managedFields managers kept on live objects. */
  managers: ReadonlySet<string>;
  /** Our own managers: objects with an Apply entry of one of them keep every entry. Default none. */
  appliers?: ReadonlySet<string>;
  /** argocd-cm resource.exclusions/inclusions (default: Argo CD's shipped exclusions). */
  resourceFilter?: ResourceFilter;
  /** The cluster's URL as Argo CD knows it (matched by the filter's `clusters` globs). */
  clusterURL?: string;
  onWarning?: (message: string) => void;
  /** Progress of the cache sync (`cache-sync-*` events). */
  onEvent?: RunEventHandler;
  /** argocd-cm `resource.customizations.knownTypeFields.*` (laid over the schemas of custom kinds). */
  knownTypeFields?: readonly KnownTypeField[];
  /** Which objects the live cache keeps whole (see the header). Default 'tracked'; 'all' for comparisons. */
  manifests?: 'all' | 'tracked';
  /** false: list, open no watch (a run that waits for nothing: `diff`). Default true. */
  watch?: boolean;
}

const CRD_GROUP = 'apiextensions.k8s.io';
const CRD_KIND = 'CustomResourceDefinition';

/** A target's kind as the cluster serves it. */
export interface ServedKind {
  /** At the requested version when served, else at the preferred version. */
  info: ResourceInfo;
  /** The requested version is served. */
  servedAtVersion: boolean;
}

/**
 * Keeps only the managedFields entries of `managers`, or every entry when one of `appliers` has an Apply
 * entry (the object was server-side applied by us).
 */
export function keepManagersTransform(
  managers: ReadonlySet<string>,
  appliers: ReadonlySet<string> = new Set(),
): Transform {
  return (obj: KubeObject) => {
    const meta = obj.metadata;
    if (!meta?.managedFields) return obj;
    const { managedFields, ...rest } = meta;
    const entry = (e: unknown): { manager?: unknown; operation?: unknown } =>
      (e ?? {}) as { manager?: unknown; operation?: unknown };
    const applied = managedFields.some((e) => {
      const { manager, operation } = entry(e);
      return operation === 'Apply' && typeof manager === 'string' && appliers.has(manager);
    });
    if (applied) return obj;
    // A manager that is not a string is in no set of names.
    const kept = managedFields.filter((e) => managers.has(entry(e).manager as string));
    obj.metadata = kept.length > 0 ? { ...rest, managedFields: kept } : rest;
    return obj;
  };
}

export class ClusterState {
  readonly conn: ClusterConnection;
  readonly #options: ClusterStateOptions;
  #ready: Promise<LiveStateCache> | undefined;
  #cache: LiveStateCache | undefined;
  readonly #kinds = new Map<string, Promise<ServedKind | undefined>>();
  readonly #cachedVersions = new Map<string, string>();
  readonly #filter: ResourceFilter;
  #schemas: SchemaLookup | undefined;
  #schemaDigest: string | undefined;
  /** Why the live cache dropped a kind during this run, keyed "group/Kind". */
  readonly #dropped = new Map<string, string>();
  /** Kinds being added to the live cache (CRD events, discovery misses), until done. */
  readonly #pickUps = new Set<Promise<void>>();
  #closed = false;

  constructor(options: ClusterStateOptions) {
    this.conn = options.conn;
    this.#options = options;
    this.#filter = options.resourceFilter ?? new ResourceFilter();
  }

  /** Whether argocd-cm's resource filter keeps this kind out of the cache and the comparison. */
  isExcluded(gk: { group: string; kind: string }): boolean {
    return this.#filter.isExcluded(gk, this.#options.clusterURL ?? this.conn.server);
  }

  /** The Secret's namespaces when it limits the cluster to them (Argo CD's "namespaced mode"). */
  get #scopedNamespaces(): readonly string[] | undefined {
    const ns = this.#options.scope?.namespaces;
    return ns && ns.length > 0 ? ns : undefined;
  }

  /** Whether the live cache holds this served kind: listable, watchable, not excluded, in scope. */
  #cacheable(r: DiscoveredResource): boolean {
    if (!r.verbs.includes('list') || !r.verbs.includes('watch') || this.isExcluded(r)) return false;
    return r.namespaced || !this.#scopedNamespaces || this.#options.scope?.clusterResources === true;
  }

  /**
   * Refuses targets outside a cluster Secret's scope, as gitops-engine's GetManagedLiveObjs (an error
   * Argo CD reports as the ComparisonError "Failed to load live state: ..." and then never syncs):
   * `cluster level <Kind> "<name>" can not be managed when in namespaced mode` (cluster-scoped target,
   * clusterResources not true), `namespace "<ns>" for <Kind> "<name>" is not managed`.
   */
  checkScope(targets: ReadonlyArray<{ key: ResourceKey }>): void {
    const namespaces = this.#scopedNamespaces;
    if (!namespaces) return;
    for (const { key } of targets) {
      let why: string | undefined;
      if (key.namespace === '' && !this.#options.scope?.clusterResources)
        why = `cluster level ${key.kind} "${key.name}" can not be managed when in namespaced mode`;
      else if (key.namespace !== '' && !namespaces.includes(key.namespace))
        why = `namespace "${key.namespace}" for ${key.kind} "${key.name}" is not managed`;
      if (why)
        throw new GitopsError(`failed to load live state: ${why}`, {
          subject: `cluster ${this.conn.context}`,
          hint: "the cluster Secret's namespaces (and clusterResources) say what Argo CD may manage there",
        });
    }
  }

  /** The synced live cache (started once; later callers share it). */
  ready(signal?: AbortSignal): Promise<LiveStateCache> {
    this.#ready ??= this.#start(signal);
    return this.#ready;
  }

  async #start(signal?: AbortSignal): Promise<LiveStateCache> {
    const emit = this.#options.onEvent;
    const cluster = this.conn.context;
    let kinds = 0;
    try {
      const all = await this.conn.discovery.resources(signal);
      const resources = all.filter((r) => r.preferred && this.#cacheable(r));
      for (const r of resources) this.#cachedVersions.set(`${r.group}/${r.kind}`, r.version);
      kinds = resources.length;
      emit?.({ type: 'cache-sync-start', cluster, kinds });
      const scoped = this.#scopedNamespaces;
      const cache = this.conn.liveCache({
        resources,
        namespaces: [...new Set(scoped ?? this.#options.namespaces)],
        ...(scoped ? { namespaceMode: 'per-namespace' as const } : {}),
        tracking: this.#options.tracking,
        transform: keepManagersTransform(this.#options.managers, this.#options.appliers),
        // Argo CD's cluster cache: the manifest of tracked objects (and CRDs) only, a stub of the others.
        manifests: this.#options.manifests ?? 'tracked',
        watch: this.#options.watch !== false,
        discovery: this.conn.discovery,
        ...(this.#options.onWarning ? { onWarning: this.#options.onWarning } : {}),
        ...(emit
          ? {
              onSyncProgress: (listed: number, scopes: number) =>
                emit({ type: 'cache-sync-progress', cluster, listed, scopes }),
            }
          : {}),
      });
      this.#cache = cache;
      cache.onKindChange((change) => this.#kindChanged(change));
      await cache.start(signal);
      cache.onEvent((e) => {
        if (e.key.group !== CRD_GROUP || e.key.kind !== CRD_KIND) return;
        const served = crdKind(e.object);
        if (!served) return;
        if (e.type === 'DELETED') {
          cache.dropKind(served, `its CustomResourceDefinition ${e.key.name} was deleted`);
        } else if (!cache.watches(served) && !this.isExcluded(served) && isEstablished(e.object)) {
          this.#pickUp(this.conn.discovery.refresh().then((all) => this.#watchMissing(all)));
        }
      });
      emit?.({ type: 'cache-sync-done', cluster, kinds, objects: cache.stats().objects });
      return cache;
    } catch (err) {
      emit?.({ type: 'cache-sync-done', cluster, kinds, objects: 0, error: oneLine(err) });
      if (signal?.aborted) throw err;
      throw new GitopsError(`failed to read live state: ${oneLine(err)}`, {
        subject: `cluster ${this.conn.context}`,
        cause: err,
      });
    }
  }

  /**
   * The schema facts of this cluster (see the header). Reads the CRDs of the live cache when first called
   * after `ready()`; before it (or without a cache), the published schemas alone.
   */
  schemas(): SchemaLookup {
    if (this.#schemas) return this.#schemas;
    const catalog = new SchemaCatalog();
    const lookup = schemaLookup(catalog, this.#options.knownTypeFields ?? []);
    const cache = this.#cache;
    if (!cache) return lookup;
    for (const crd of cache.list(CRD_GROUP, CRD_KIND)) catalog.addCustomResourceDefinition(crd);
    cache.onEvent((e) => {
      if (e.key.group !== CRD_GROUP || e.key.kind !== CRD_KIND) return;
      this.#schemaDigest = undefined;
      if (e.type === 'DELETED') catalog.removeCustomResourceDefinition(e.key.name);
      else catalog.addCustomResourceDefinition(e.object);
    });
    this.#schemas = lookup;
    return lookup;
  }

  /** A digest of what `schemas()` holds beyond our code (disk-memo.ts `schemaDigestOf`); call after it. */
  schemaDigest(): string {
    const crds = this.#cache?.list(CRD_GROUP, CRD_KIND) ?? [];
    return (this.#schemaDigest ??= schemaDigestOf(crds, this.#options.knownTypeFields ?? []));
  }

  #kindChanged(change: KindChange): void {
    this.#kinds.clear(); // served kinds are answered afresh from now on
    const id = `${change.group}/${change.kind}`;
    if (change.type === 'dropped') {
      const version = this.#cachedVersions.get(id);
      this.#cachedVersions.delete(id);
      this.#dropped.set(id, change.reason ?? 'no longer served');
      // Still served at another version (a CRD update stopped serving the cached one): once the drop's
      // discovery refresh is in, watch the kind at its new preferred version. The version it was dropped
      // at is never taken again, so a server whose discovery and paths disagree cannot make this loop.
      const cache = this.#cache;
      if (cache && !this.#closed)
        this.#pickUp(
          cache
            .kindsSettled()
            .then(() => this.conn.discovery.resources())
            .then((all) =>
              this.#watchMissing(all.filter((r) => `${r.group}/${r.kind}` !== id || r.version !== version)),
            ),
        );
    } else {
      this.#dropped.delete(id);
    }
  }

  /** Tracks a change of the cached kinds; its failure is a warning (the run goes on without the kind). */
  #pickUp(work: Promise<void>): void {
    const p = work.catch((err: unknown) => {
      if (!this.#closed)
        this.#options.onWarning?.(`${this.conn.context}: failed to watch new kinds: ${oneLine(err)}`);
    });
    this.#pickUps.add(p);
    void p.finally(() => this.#pickUps.delete(p));
  }

  /** Adds every served kind the live cache does not hold yet (Argo CD's startMissingWatches). */
  async #watchMissing(all: DiscoveredResource[], signal?: AbortSignal): Promise<void> {
    const cache = this.#cache;
    if (!cache?.synced || this.#closed) return;
    const missing = all.filter((r) => r.preferred && this.#cacheable(r) && !cache.watches(r));
    if (missing.length === 0) return;
    await cache.addResources(missing.map(toResourceInfo), signal);
    for (const r of missing)
      if (cache.watches(r)) this.#cachedVersions.set(`${r.group}/${r.kind}`, r.version);
  }

  /** Resolves once the kind changes in flight (drops' discovery refreshes, kinds being added) are done. */
  async settled(): Promise<void> {
    for (;;) {
      await this.#cache?.kindsSettled();
      if (this.#pickUps.size === 0) return;
      await Promise.all([...this.#pickUps]);
    }
  }

  /** Why the live cache dropped `group/kind` during this run (undefined when it did not). */
  droppedReason(gk: { group: string; kind: string }): string | undefined {
    return this.#dropped.get(`${gk.group}/${gk.kind}`);
  }

  /** The version the live cache holds a group/kind at (undefined when not cached). */
  cachedVersion(gk: { group: string; kind: string }): string | undefined {
    return this.#cachedVersions.get(`${gk.group}/${gk.kind}`);
  }

  /** How the cluster serves `group/kind` (undefined when it does not); memoized per run. */
  kind(
    gvk: { group: string; version: string; kind: string },
    signal?: AbortSignal,
  ): Promise<ServedKind | undefined> {
    const id = `${gvk.group}/${gvk.version}/${gvk.kind}`;
    let p = this.#kinds.get(id);
    if (!p) {
      p = (async () => {
        const d = this.conn.discovery;
        const find = (rs: DiscoveredResource[]): ServedKind | undefined => {
          const same = rs.filter((r) => r.group === gvk.group && r.kind === gvk.kind);
          const exact = same.find((r) => r.version === gvk.version);
          const other = same.find((r) => r.preferred) ?? same[0];
          if (exact) return { info: toResourceInfo(exact), servedAtVersion: true };
          return other ? { info: toResourceInfo(other), servedAtVersion: false } : undefined;
        };
        await this.settled();
        const known = find(await d.resources(signal));
        if (known) return known;
        // A miss refreshes discovery once (a CRD created since it was cached), and the live cache starts
        // watching what the refresh found.
        const all = await d.refresh(signal);
        const fresh = find(all);
        if (fresh) {
          const watched = this.#watchMissing(all, signal);
          this.#pickUp(watched);
          await watched.catch(() => undefined); // a failure is the pick-up's warning
        }
        return fresh;
      })();
      this.#kinds.set(id, p);
    }
    return p;
  }

  /** Stops the cache's watches and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cache?.stop();
    await this.#cache?.stopped();
    this.conn.close();
  }
}

/** The group and kind a CustomResourceDefinition serves (undefined when its spec does not say). */
function crdKind(crd: KubeObject): { group: string; kind: string } | undefined {
  const spec = crd.spec as { group?: unknown; names?: { kind?: unknown } } | undefined;
  const group = spec?.group;
  const kind = spec?.names?.kind;
  return typeof group === 'string' && typeof kind === 'string' ? { group, kind } : undefined;
}

/** Whether a CRD's Established condition is True (kube-apiserver serves its kind from then on). */
function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: unknown } | undefined)?.conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some(
      (c: { type?: unknown; status?: unknown }) => c?.type === 'Established' && c?.status === 'True',
    )
  );
}
