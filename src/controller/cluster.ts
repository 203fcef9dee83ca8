/**
 * `ClusterState`: what the refresh knows about one destination cluster during a run: its connection, one
 * shared live cache (started on first use, by the first app that needs it) and a memo of served kinds.
 *
 * Live cache scope: every served kind with list+watch verbs, at its preferred version, except the
 * exclusions (exclusions.ts, from argocd-cm when read), in the destination namespaces of the run's apps on this cluster (plus every
 * cluster-scoped object). So requests per run are kinds (x namespaces when there is one namespace), never
 * per resource. Objects outside those namespaces are fetched by key when a target names them (one GET
 * each); extra (prune-candidate) resources are only found inside the scope.
 * Transform: `metadata.managedFields` is cut down to the entries of the managers the comparison reads (our
 * own, and `managedFieldsManagers` of ignoreDifferences rules); everything else is dropped, except on
 * objects one of `appliers` server-side applied (an Apply entry): structured-merge diff needs every
 * entry there, as a field we applied and Git dropped is pruned only when no other manager owns it.
 * Schema facts (`schemas()`): Kubernetes' published schemas plus the CustomResourceDefinitions in the live
 * cache, kept current from its events (a CRD created or deleted during the run), with argocd-cm's
 * knownTypeFields: the lookup the diff reads list shapes of custom resources from, as Argo CD's
 * structured-merge and server-side diff read the cluster's OpenAPI (CRDs included). CRDs left out of the
 * cache by resource exclusions are not read: their kinds' lists are atomic.
 */
import type {
  ClusterConnection,
  KubeObject,
  LiveStateCache,
  ResourceInfo,
  Transform,
} from '../cluster/index.js';
import { toResourceInfo } from '../cluster/index.js';
import type { DiscoveredResource, TrackingOptions } from '../cluster/index.js';
import { GitopsError, oneLine } from '../common/index.js';
import { SchemaCatalog, schemaLookup } from '../schema/index.js';
import type { KnownTypeField, SchemaLookup } from '../schema/index.js';
import { ResourceFilter } from './exclusions.js';
import type { RunEventHandler } from './types.js';

export interface ClusterStateOptions {
  conn: ClusterConnection;
  /** Destination namespaces of the apps on this cluster. */
  namespaces: readonly string[];
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
    const kept = managedFields.filter((e) => {
      const m = entry(e).manager;
      return typeof m === 'string' && managers.has(m);
    });
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

  constructor(options: ClusterStateOptions) {
    this.conn = options.conn;
    this.#options = options;
    this.#filter = options.resourceFilter ?? new ResourceFilter();
  }

  /** Whether argocd-cm's resource filter keeps this kind out of the cache and the comparison. */
  isExcluded(gk: { group: string; kind: string }): boolean {
    return this.#filter.isExcluded(gk, this.#options.clusterURL ?? this.conn.server);
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
      const resources = all.filter(
        (r) => r.preferred && r.verbs.includes('list') && r.verbs.includes('watch') && !this.isExcluded(r),
      );
      for (const r of resources) this.#cachedVersions.set(`${r.group}/${r.kind}`, r.version);
      kinds = resources.length;
      emit?.({ type: 'cache-sync-start', cluster, kinds });
      const cache = this.conn.liveCache({
        resources,
        namespaces: [...new Set(this.#options.namespaces)],
        tracking: this.#options.tracking,
        transform: keepManagersTransform(this.#options.managers, this.#options.appliers),
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
      await cache.start(signal);
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
      if (e.type === 'DELETED') catalog.removeCustomResourceDefinition(e.key.name);
      else catalog.addCustomResourceDefinition(e.object);
    });
    this.#schemas = lookup;
    return lookup;
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
        // A miss refreshes discovery once (a CRD created since it was cached).
        return find(await d.resources(signal)) ?? find(await d.refresh(signal));
      })();
      this.#kinds.set(id, p);
    }
    return p;
  }

  /** Stops the cache's watches and closes the connection. */
  async close(): Promise<void> {
    this.#cache?.stop();
    await this.#cache?.stopped();
    this.conn.close();
  }
}
