/**
 * The continuous loop's clusters and projects (loop.ts): what a one-shot run sets up once (run/run.ts steps
 * 1-2), kept current while apps come and go.
 *
 * - `setUp(app)`: the app's destination and AppProject, resolved as a run resolves them (refresh/destinations.ts
 *   `resolveDestinations`: a context, else a cluster Secret; the project's conditions; sync windows
 *   warnings once), into one shared `Destinations`; an app refused there carries the error on its report.
 *   A new app whose destination namespace a cluster's live cache does not cover has that cluster retired
 *   and listed again (`ClusterPool.rescope`); `onRescoped` hears which.
 * - `lease(app)`: the app's cluster from the one `ClusterPool`, held until released (a cluster a rescope
 *   replaced is closed once its last lease ends), its live-cache events routed to the loop (`LiveRouter`)
 *   once the cache is ready; apps pinned to a revision (`pin`) are the app they were made from.
 * - `scopeProjects()`: the projects extended by the cluster and repository Secrets scoped to them (refresh/scoped.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { projectConditions, ProjectSet } from '../../apps/index.js';
import type { Application, ProjectClusters, ProjectCondition } from '../../apps/index.js';
import type { LiveStateCache } from '../../cluster/index.js';
import { appWindowsVerdict, ClusterPool, resolveDestinations, scopeProjects } from '../refresh/index.js';
import type {
  AppProjectContext,
  AppReport,
  ClusterLease,
  ClusterState,
  Destinations,
  EngineOptions,
  SharedClusterOptions,
} from '../refresh/index.js';
import type { LiveRouter } from './live.js';
import { pinnedApp } from './state.js';
import type { OperationRequest } from './types.js';

export interface LoopClustersOptions {
  run: Pick<
    EngineOptions,
    | 'projects'
    | 'projectClusters'
    | 'clusterSecrets'
    | 'settings'
    | 'source'
    | 'connect'
    | 'discovery'
    | 'client'
    | 'wallClock'
    | 'onWarning'
  >;
  argocdNamespace: string;
  kubeConfig: KubeConfig;
  /** Every app of the loop it owns now (their destination namespaces scope the live caches). */
  apps: () => readonly Application[];
  shared: SharedClusterOptions;
  router: LiveRouter;
  stopping: () => boolean;
  /** Clusters closed by a rescope (their apps' next refresh connects again). */
  onRescoped: (contexts: string[]) => void;
}

export class LoopClusters {
  readonly #o: LoopClustersOptions;
  readonly dest: Destinations = {
    contextOf: new Map(),
    accessOf: new Map(),
    scopeOf: new Map(),
    projectOf: new Map(),
  };
  readonly pool: ClusterPool;
  #projects = new ProjectSet();
  #projectClusters: ProjectClusters | undefined;
  readonly #origin = new WeakMap<Application, Application>();
  readonly #watched = new WeakSet<ClusterState>();
  readonly #unsubscribe: Array<() => void> = [];
  readonly #warned = new Set<string>();
  /** Namespaces each app's resources were found in beyond its destination namespace (`observe`). */
  readonly #namespaces = new WeakMap<Application, Set<string>>();

  constructor(options: LoopClustersOptions) {
    this.#o = options;
    const r = options.run;
    this.pool = new ClusterPool({
      kubeConfig: options.kubeConfig,
      apps: options.apps,
      namespacesOf: (app) => this.#namespaces.get(app) ?? [],
      destinations: this.dest,
      connect: r.connect,
      discovery: r.discovery,
      client: r.client,
      state: options.shared,
    });
  }

  /** The app `app` was pinned from (itself when not pinned). */
  original(app: Application): Application {
    return this.#origin.get(app) ?? app;
  }

  pin(app: Application, request: OperationRequest): Application {
    const pinned = pinnedApp(app, request);
    if (pinned !== app) this.#origin.set(pinned, app);
    return pinned;
  }

  contextOf(app: Application): string | undefined {
    return this.dest.contextOf.get(this.original(app));
  }

  projectOf(app: Application): AppProjectContext | undefined {
    return this.dest.projectOf.get(this.original(app));
  }

  async scopeProjects(projects: ProjectSet | undefined): Promise<void> {
    const r = this.#o.run;
    const scoped = await scopeProjects(
      projects ?? new ProjectSet(),
      this.#o.apps().map((a) => a.project),
      {
        clusterSecrets: r.clusterSecrets,
        projectRepositories: r.source.projectRepositories?.bind(r.source),
        onWarning: r.onWarning,
      },
    );
    this.#projects = scoped.projects;
    this.#projectClusters = r.projectClusters ?? scoped.projectClusters;
  }

  /**
   * The app's cluster, held until `release()` (`ClusterPool.lease`: a rescope closes a replaced cluster
   * once its last lease ends), its live-cache events routed to the loop once it is ready.
   */
  lease(app: Application): ClusterLease {
    const original = this.original(app);
    // An app replaced or removed while its refresh ran: its new spec's refresh follows.
    if (!this.dest.contextOf.has(original)) throw new Error('the app changed during its refresh');
    const context = this.dest.contextOf.get(original)!;
    const lease = this.pool.lease(original);
    void lease.cluster.then(
      (cluster) => {
        if (this.#watched.has(cluster)) return;
        this.#watched.add(cluster);
        void cluster.ready().then(
          (cache: LiveStateCache) => {
            if (!this.#o.stopping())
              this.#unsubscribe.push(cache.onEvent(this.#o.router.handler(context, (key) => cache.get(key))));
          },
          () => this.#watched.delete(cluster), // the app's refresh reports it; the next one tries again
        );
      },
      () => undefined,
    ); // the app's refresh reports it
    return lease;
  }

  /** Resolves the app's destination and project (see the header); `rescope` for apps added while running. */
  setUp(app: Application, rescope: boolean): AppReport {
    const r = this.#o.run;
    const report: AppReport = {
      app,
      destination: {
        ...(app.destination.server ? { server: app.destination.server } : {}),
        ...(app.destination.name ? { name: app.destination.name } : {}),
        namespace: app.destination.namespace,
      },
    };
    const projectCheck = (a: Application, cluster?: AppProjectContext['cluster']): ProjectCondition[] =>
      projectConditions(a, this.#projects.get(a.project), cluster, {
        controllerNamespace: this.#o.argocdNamespace,
        projectClusters: this.#projectClusters,
      });
    const d = resolveDestinations([report], {
      kubeConfig: this.#o.kubeConfig,
      projects: this.#projects,
      projectCheck,
      refusedEarly: new Set(projectCheck(app).length > 0 ? [app] : []),
      clusterSecrets: r.clusterSecrets,
      projectClusters: this.#projectClusters,
      inClusterEnabled: r.settings?.inClusterEnabled !== false,
      judgeWindows: (rep) => {
        const verdict = appWindowsVerdict(rep.app, rep.project, (r.wallClock ?? ((): Date => new Date()))());
        for (const m of verdict.warnings) {
          if (this.#warned.has(m)) continue;
          this.#warned.add(m);
          r.onWarning?.(m);
        }
        return verdict;
      },
    });
    for (const [a, c] of d.contextOf) this.dest.contextOf.set(a, c);
    for (const [c, a] of d.accessOf) this.dest.accessOf.set(c, a);
    for (const [c, s] of d.scopeOf) if (!this.dest.scopeOf.has(c)) this.dest.scopeOf.set(c, s);
    for (const [a, p] of d.projectOf) this.dest.projectOf.set(a, p);
    this.keepManagersOf(app);
    if (rescope) this.rescope();
    return report;
  }

  /**
   * The namespaces of an app's resources after a refresh: one its cluster's live cache does not cover yet
   * (a kustomization's own namespace, child Applications in the Argo CD namespace) widens the cache, which
   * is listed again (`rescope`), so the app's resource tree holds what lives under those resources.
   */
  observe(app: Application, namespaces: Iterable<string>): void {
    const original = this.original(app);
    const known = this.#namespaces.get(original) ?? new Set<string>();
    let added = false;
    for (const ns of namespaces) {
      if (!ns || ns === original.destination.namespace || known.has(ns)) continue;
      known.add(ns);
      added = true;
    }
    if (!added) return;
    this.#namespaces.set(original, known);
    this.rescope();
  }

  /** The apps changed (added, or a new ownership): clusters that no longer cover them are listed again. */
  rescope(all = false): void {
    void this.pool.rescope(all).then((closed) => closed.length > 0 && this.#o.onRescoped(closed));
  }

  /**
   * Keeps the managedFields entries of the app's ignoreDifferences `managedFieldsManagers` too (an app
   * added after the start): the live caches, which dropped those entries, are listed again.
   */
  keepManagersOf(app: Application): void {
    const managers = this.#o.shared.managers as Set<string>;
    const added = app.ignoreDifferences
      .flatMap((r) => r.managedFieldsManagers)
      .filter((m) => !managers.has(m));
    if (added.length === 0) return;
    for (const m of added) managers.add(m);
    this.rescope(true);
  }

  /**
   * `<cluster>|<namespace>` → keys of the apps whose AppProject watches orphaned resources there (Argo
   * CD's orphanedIndex: the project sets `orphanedResources`; indexed by destination namespace).
   */
  orphanWatchers(entries: Iterable<{ key: string; app: Application }>): Map<string, string[]> {
    const map = new Map<string, string[]>();
    for (const e of entries) {
      const context = this.contextOf(e.app);
      if (context === undefined || this.projectOf(e.app)?.project.orphanedResources === undefined) continue;
      const k = `${context}|${e.app.destination.namespace}`;
      map.set(k, [...(map.get(k) ?? []), e.key]);
    }
    return map;
  }

  forget(app: Application): void {
    this.dest.contextOf.delete(app);
    this.dest.projectOf.delete(app);
  }

  /** Stops routing events, closes every cluster; returns the API requests made. */
  async close(): Promise<number> {
    for (const off of this.#unsubscribe.splice(0)) off();
    return this.pool.close();
  }
}
