/**
 * A run's setup before any comparison: early renders, each app's destination and AppProject, and the pool
 * of cluster connections (run/run.ts steps 1-2).
 *
 * - `primeRenders`: the first render of each given app starts at once (Git needs no cluster); the first
 *   `renderApp` of such an app takes it, later ones render again; `settle()` waits for renders nobody took.
 * - `resolveDestinations`: each app's destination resolves to a kubeconfig context, or else to one of the
 *   cluster Secrets (src/cluster `resolveCluster`: a context wins when both match). Then the app is held
 *   to its AppProject (Argo CD's refreshAppConditions): a missing project or a refused app namespace is the
 *   only condition (getAppProj fails first); refused repositories, destinations or clusters are the app's
 *   error (exit 2, `projectError`), and a destination that does not resolve is reported beside refused
 *   sources (ValidatePermissions). Apps that pass get their project context and their sync windows judged.
 *   Errors are written on the app's report; nothing throws.
 * - `ClusterPool`: one `ClusterState` per context, or per cluster Secret (keyed "secret <server>"): one
 *   connection and one live cache shared by the apps of that cluster, scoped to their destination
 *   namespaces (and a cluster Secret's scope), started by the first app that needs it. The prepared
 *   connection (run/prepare.ts) serves its own context, once, when no cluster Secret adds its access to that
 *   context; one of another context is kept aside and closed with the pool. A failed connection is not
 *   kept (the app's retry connects again). `lease(app)` is `clusterOf` held until released: a cluster a
 *   rescope replaced (retired) is closed once its last lease ends (at once when it has none), so an
 *   operation syncing on its live cache ends first, and no retired cache outlives its last user.
 *   `close()` closes everything and returns the API requests made.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type {
  Application,
  AppProject,
  ProjectClusters,
  ProjectCondition,
  ProjectSet,
} from '../../apps/index.js';
import { ExitCode, oneLine } from '../../common/index.js';
import { connect as defaultConnect, resolveCluster } from '../../cluster/index.js';
import type {
  ClientOptions,
  ClusterAccess,
  ClusterConnection,
  ClusterScope,
  ConnectOptions,
  DiscoveryOptions,
} from '../../cluster/index.js';
import type { ClusterInfo, RenderedApp, SourceService } from '../../source/index.js';
import { ClusterState } from './cluster.js';
import type { ClusterStateOptions } from './cluster.js';
import { appError } from './app-error.js';
import { destinationCluster } from './projects.js';
import { inClusterRefusal } from './scoped.js';
import type { AppProjectContext } from './projects.js';
import type { AppCondition, AppReport } from './types.js';
import type { AppWindowsVerdict } from './windows.js';

/**
 * `source`, with the first render of each of `apps` already started: the first `renderApp` of such an
 * app gets that render, later ones render again. `settle()` waits for started renders nobody took.
 */
export function primeRenders(
  source: SourceService,
  apps: readonly Application[],
): SourceService & { settle(): Promise<void> } {
  const started = new Map<Application, Promise<RenderedApp>>();
  for (const app of apps) {
    const render = source.renderApp(app);
    render.catch(() => undefined); // the compare that takes it reports its failure
    started.set(app, render);
  }
  return {
    renderApp: (app) => {
      const render = started.get(app);
      if (!render) return source.renderApp(app);
      started.delete(app);
      return render;
    },
    checkoutTree: (repoURL, revision) => source.checkoutTree(repoURL, revision),
    forgetRevisions: (repoURL) => source.forgetRevisions?.(repoURL),
    useClusterInfo: (info) => source.useClusterInfo?.(info),
    get stats() {
      return source.stats;
    },
    close: () => source.close(),
    settle: async () => {
      await Promise.allSettled(started.values());
    },
  };
}

/** What a plugin render learns of its app's cluster (KUBE_VERSION, KUBE_API_VERSIONS): from discovery. */
export async function clusterInfoOf(cluster: ClusterState): Promise<ClusterInfo> {
  const [kubeVersion, apiVersions] = await Promise.all([
    cluster.conn.discovery.serverVersion(),
    cluster.conn.discovery.apiVersions(),
  ]);
  return { kubeVersion, apiVersions };
}

/**
 * The app's error for the project's conditions, in Argo CD's words (exit 2): the app is neither compared
 * nor synced, as Argo CD's refresh stops at them (sync Unknown, health Unknown).
 */
export function projectError(
  app: Application,
  project: AppProject | undefined,
  conditions: readonly ProjectCondition[],
): { message: string; exitCode: number; hint: string; conditions: AppCondition[] } {
  return {
    message: `app "${app.name}": failed to compare: ${conditions.map((c) => c.message).join('; ')}`,
    exitCode: ExitCode.FAILURE,
    conditions: conditions.map((c) => ({ type: c.type, message: c.message })),
    hint: project
      ? `AppProject "${project.name}" (${project.origin}) refuses this app, as Argo CD does (${conditions[0]!.type})`
      : `pass the AppProject manifest with --project-file or -f, or read the projects of the Argo CD namespace with --from-cluster`,
  };
}

/** Where the apps of a run go (`resolveDestinations`). */
export interface Destinations {
  /** The app's cluster key: a context name, or "secret <server>" for a cluster Secret. */
  contextOf: Map<Application, string>;
  /** The cluster Secret of a "secret <server>" key. */
  accessOf: Map<string, ClusterAccess>;
  /** A context's scope from the cluster Secret for the same cluster (the first app that names one). */
  scopeOf: Map<string, ClusterScope>;
  projectOf: Map<Application, AppProjectContext>;
}

export function resolveDestinations(
  reports: readonly AppReport[],
  o: {
    kubeConfig: KubeConfig;
    projects: ProjectSet;
    projectCheck: (app: Application, cluster?: AppProjectContext['cluster']) => ProjectCondition[];
    refusedEarly: ReadonlySet<Application>;
    clusterSecrets?: readonly ClusterAccess[] | undefined;
    projectClusters?: ProjectClusters | undefined;
    /** argocd-cm `cluster.inClusterEnabled` (scoped.ts `inClusterRefusal`). */
    inClusterEnabled: boolean;
    judgeWindows: (r: AppReport) => AppWindowsVerdict;
  },
): Destinations {
  const { kubeConfig, projects, projectCheck } = o;
  const contextOf = new Map<Application, string>();
  const accessOf = new Map<string, ClusterAccess>();
  const scopeOf = new Map<string, ClusterScope>();
  const projectOf = new Map<Application, AppProjectContext>();
  for (const r of reports) {
    // Argo CD's refreshAppConditions: the project's conditions stop the app before any comparison. A
    // missing project or a refused app namespace is the only condition (getAppProj fails first).
    const project = projects.get(r.app.project);
    if (project) r.project = project;
    const early = o.refusedEarly.has(r.app) ? projectCheck(r.app) : [];
    if (early.length > 0 && (!project || early[0]!.type === 'UnknownError')) {
      r.error = projectError(r.app, project, early);
      continue;
    }
    try {
      const refusedFirst = inClusterRefusal(
        r.app.destination,
        undefined,
        o.inClusterEnabled,
        o.clusterSecrets,
      );
      if (refusedFirst) throw refusedFirst;
      const resolved = resolveCluster(kubeConfig, r.app.destination, o.clusterSecrets);
      let context: string;
      let cluster: AppProjectContext['cluster'];
      if (resolved.access) {
        context = `secret ${resolved.access.server}`;
        accessOf.set(context, resolved.access);
        r.destination.context = resolved.access.displayName;
        // Argo CD's Cluster object of a Secret: its server and its name.
        cluster = { server: resolved.access.server, name: resolved.access.name };
      } else {
        context = resolved.context;
        r.destination.context = context;
        if (resolved.scope && !scopeOf.has(context)) scopeOf.set(context, resolved.scope);
        cluster = destinationCluster(kubeConfig, r.app.destination, context);
      }
      const disabled = inClusterRefusal(r.app.destination, cluster, o.inClusterEnabled, o.clusterSecrets);
      if (disabled) throw disabled;
      contextOf.set(r.app, context);
      const conditions = projectCheck(r.app, cluster);
      if (conditions.length > 0) {
        r.error = projectError(r.app, project, conditions);
        contextOf.delete(r.app);
        continue;
      }
      projectOf.set(r.app, {
        project: project!,
        cluster,
        projectClusters: o.projectClusters,
      });
      o.judgeWindows(r);
    } catch (err) {
      // ValidatePermissions reports a destination that does not resolve (or the disabled in-cluster one)
      // as an InvalidSpecError, beside refused sources.
      const condition = { type: 'InvalidSpecError' as const, message: oneLine(err) };
      r.error =
        early.length > 0
          ? projectError(r.app, project, [...early, condition])
          : { ...appError(r.app, err), conditions: [condition] };
    }
  }
  return { contextOf, accessOf, scopeOf, projectOf };
}

/** A cluster held for as long as something uses it (`ClusterPool.lease`). */
export interface ClusterLease {
  cluster: Promise<ClusterState>;
  /** Ends the hold (once; later calls do nothing). */
  release: () => void;
}

export interface ClusterPoolOptions {
  kubeConfig: KubeConfig;
  /** The apps (a function: the continuous loop's apps change; `rescope` follows them). */
  apps: readonly Application[] | (() => readonly Application[]);
  /**
   * Namespaces an app's resources live in beyond its destination namespace (the continuous loop learns
   * them from its refreshes): its live cache covers them too, so its resource tree (status.summary) holds
   * their descendants, as Argo CD's cluster-wide cache does.
   */
  namespacesOf?: ((app: Application) => Iterable<string>) | undefined;
  destinations: Destinations;
  /** Cluster work started while the apps loaded (run/prepare.ts): its connection, if any. */
  prepared?: Promise<ClusterConnection | undefined> | undefined;
  connect?: ((options: ConnectOptions) => Promise<ClusterConnection>) | undefined;
  discovery?: DiscoveryOptions | undefined;
  client?: ClientOptions | undefined;
  /** What every cluster's `ClusterState` shares. */
  state: Omit<ClusterStateOptions, 'conn' | 'namespaces' | 'scope' | 'clusterURL'>;
}

/** The run's clusters (see the header). */
export class ClusterPool {
  readonly #o: ClusterPoolOptions;
  readonly #clusters = new Map<string, Promise<ClusterState>>();
  /** The destination namespaces each cluster's live cache was scoped to. */
  readonly #namespaces = new Map<string, ReadonlySet<string>>();
  /** Leases not yet released, per cluster (`lease`). */
  readonly #leases = new Map<Promise<ClusterState>, number>();
  /** Clusters a rescope replaced that still have leases: each is closed when its last one ends. */
  readonly #retired = new Set<Promise<ClusterState>>();
  /** Retired clusters being closed, and the API requests of those closed (counted in `close()`). */
  readonly #closing = new Set<Promise<void>>();
  #closedRequests = 0;
  #closed = false;
  #prepared: Promise<ClusterConnection | undefined> | undefined;
  #unused: ClusterConnection | undefined;

  constructor(options: ClusterPoolOptions) {
    this.#o = options;
    this.#prepared = options.prepared;
  }

  /** The prepared connection, once: later calls get undefined. */
  #takePrepared(): Promise<ClusterConnection | undefined> | undefined {
    const p = this.#prepared;
    this.#prepared = undefined;
    return p;
  }

  /** The app's cluster (its destination resolved by `resolveDestinations`), connected on first use. */
  clusterOf(app: Application): Promise<ClusterState> {
    const o = this.#o;
    const { contextOf, accessOf, scopeOf } = o.destinations;
    const context = contextOf.get(app)!;
    let p = this.#clusters.get(context);
    if (!p) {
      const namespaces = this.#wanted(context);
      this.#namespaces.set(context, new Set(namespaces));
      const access = accessOf.get(context);
      const fresh = (): Promise<ClusterConnection> =>
        (o.connect ?? defaultConnect)({
          kubeConfig: o.kubeConfig,
          destination: app.destination,
          ...(access ? { access } : {}),
          ...(o.discovery ? { discovery: o.discovery } : {}),
          ...(o.client ? { client: o.client } : {}),
        });
      // The prepared connection serves its own context, once, when no cluster Secret adds its access or
      // scope to that context; anything else connects now.
      const prepared = access ? undefined : this.#takePrepared();
      p = (
        prepared
          ? prepared.then((conn) => (conn?.context === context ? conn : ((this.#unused = conn), fresh())))
          : fresh()
      ).then(
        (conn) =>
          new ClusterState({
            conn,
            namespaces,
            ...(conn.scope || scopeOf.has(context) ? { scope: conn.scope ?? scopeOf.get(context) } : {}),
            ...o.state,
            clusterURL: app.destination.server ?? conn.server,
          }),
      );
      const clusters = this.#clusters;
      clusters.set(context, p);
      // A failed connection is not kept: the app's retry (a transient failure) connects again.
      const failed = p;
      failed.catch(() => {
        if (clusters.get(context) === failed) {
          clusters.delete(context);
          this.#namespaces.delete(context);
        }
      });
    }
    return p;
  }

  /**
   * The app's cluster (`clusterOf`), held until `release()` (once; later calls do nothing): a rescope
   * does not close it before. What syncs on a cluster's live cache, or reads it, holds a lease.
   */
  lease(app: Application): ClusterLease {
    const cluster = this.clusterOf(app);
    this.#leases.set(cluster, (this.#leases.get(cluster) ?? 0) + 1);
    let released = false;
    return {
      cluster,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.#leases.get(cluster) ?? 1) - 1;
        if (left > 0) {
          this.#leases.set(cluster, left);
          return;
        }
        this.#leases.delete(cluster);
        if (this.#retired.delete(cluster)) this.#closeRetired(cluster);
      },
    };
  }

  /** Closes a retired cluster (its API requests counted in `close()`), unless the pool closed already. */
  #closeRetired(p: Promise<ClusterState>): void {
    if (this.#closed) return;
    const closing = p
      .then(async (state) => {
        this.#closedRequests += state.conn.client.counts().total;
        await state.close();
      })
      .catch(() => undefined) // a failed connection has nothing to close
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }

  /** The destination namespaces of the apps of `context` now. */
  #wanted(context: string): string[] {
    const apps = typeof this.#o.apps === 'function' ? this.#o.apps() : this.#o.apps;
    const { contextOf } = this.#o.destinations;
    return apps
      .filter((a) => contextOf.get(a) === context)
      .flatMap((a) => [a.destination.namespace, ...(this.#o.namespacesOf?.(a) ?? [])]);
  }

  /**
   * The continuous loop's apps changed: a cluster whose live cache does not cover the destination
   * namespaces of its apps now is retired, and connected again (listed anew) by the next app that needs
   * it. `all`: every cluster is (the shared options changed: a new managedFields manager to keep).
   * A retired cluster is closed once no lease holds it (see `lease`). Returns the cluster keys retired
   * (their API requests count in `close()`).
   */
  async rescope(all = false): Promise<string[]> {
    const closed: string[] = [];
    for (const [context, p] of [...this.#clusters]) {
      const had = this.#namespaces.get(context);
      if (!all && (!had || this.#wanted(context).every((ns) => had.has(ns)))) continue;
      this.#clusters.delete(context);
      this.#namespaces.delete(context);
      closed.push(context);
      // Not closed while leased: an operation may be syncing on it (its sync waits on this live cache's
      // events, and a cache closed under it would never send them). The next refreshes connect anew.
      if (this.#leases.has(p)) this.#retired.add(p);
      else this.#closeRetired(p);
    }
    return closed;
  }

  /** Closes every connection (the prepared one too, taken or not); returns the API requests of the run. */
  async close(): Promise<number> {
    this.#closed = true;
    await Promise.all(this.#closing);
    let requests = this.#closedRequests;
    (await this.#takePrepared())?.close();
    this.#unused?.close();
    const retired = [...this.#retired];
    this.#retired.clear();
    for (const p of [...retired, ...this.#clusters.values()]) {
      const state = await p.catch(() => undefined);
      if (!state) continue;
      requests += state.conn.client.counts().total;
      await state.close();
    }
    return requests;
  }
}
