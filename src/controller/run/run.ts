/**
 * `Run`: the one-shot refresh loop (Argo CD's application controller, in the foreground, spec §8).
 *
 * 1. (refresh/destinations.ts) Loads the kubeconfig once (a kubeconfig that fails to load rejects the run: it is the
 *    one error every app would share) and resolves each app's destination to a context, or else to one of
 *    `clusterSecrets` (Argo CD cluster Secrets; src/cluster destination.ts: a context wins when both match);
 *    apps whose destination does not resolve get that error, the others go on. Each app is then held to its
 *    AppProject (`projects`, extended by the cluster and repository Secrets scoped to it: refresh/scoped.ts; Argo
 *    CD's refreshAppConditions): a missing project or a refused app namespace, repository or destination is
 *    that app's error (exit 2, never compared nor synced); apps refused without a cluster (project,
 *    namespace, repository) are not even rendered. With argocd-cm `cluster.inClusterEnabled: "false"` an
 *    in-cluster destination is that app's error too. Meanwhile the first app of each
 *    refresh worker starts rendering (Git needs no cluster; the first compare of the app takes it).
 * 2. (refresh/destinations.ts `ClusterPool`) One `ClusterState` per context (or cluster Secret): one connection and
 *    one live cache shared by every app of that cluster, scoped to their destination namespaces (a cluster
 *    Secret's `namespaces` and `clusterResources` narrow it, as Argo CD's cluster cache), started by the
 *    first app that needs it.
 * 3. (processors.ts, health-wait.ts) Every app key (`<namespace>/<name>`) goes into the refresh queue
 *    (src/queue); `statusProcessors` workers (default 4) run the refresh processor (`StateManager.reconcile`,
 *    reported by `toReport`). With an operation (sync), the refreshed app goes to the operation queue with
 *    its reconciliation, whose `operationProcessors` workers (default 2) run it while other apps keep
 *    refreshing; then the app is refreshed again for its final state, and a Failed operation with retries
 *    left comes back to the refresh queue after its backoff. Processors return what comes next, as
 *    controller-runtime reconcilers do; a transient failure (5xx, 429, transport) is retried through the
 *    queue with per-app rate limiting (`MAX_TRANSIENT_RETRIES`), any other failure is recorded on that app,
 *    never hiding the others. Before each operation the app's AppProject sync windows are judged at
 *    `wallClock()` (refresh/windows.ts; a CLI sync is manual): a refused sync is that app's error (exit 2) and never
 *    starts, unless `syncWindows: 'report'` (dry run).
 *    With `waitForHealth` (sync --health) an app still Progressing after its operation waits in the refresh
 *    queue, not in a worker (health-wait.ts).
 * 4. The run ends when every app is finished (the completion predicate), or when `signal` aborts: an app
 *    whose operation ended but whose refresh after it had not run then gets it (`finalRefresh`: the live
 *    cache against the render it synced, bounded by `FINAL_REFRESH_GRACE_MS`), never the comparison from
 *    before its operation; apps not finished otherwise carry an "interrupted" error and `interrupted` is
 *    true. Caches are stopped, connections closed.
 * The report lists apps in the order given, with the total API requests of the run.
 * Progress (`onEvent`, refresh/types.ts `RunEvent`): run-start, then per app render/compare (refresh/state.ts) and sync
 * events, per cluster the cache sync (refresh/cluster.ts), and app-done when an app is finished.
 */
import type { Application } from '../../apps/index.js';
import {
  DEFAULT_OPERATION_PROCESSORS,
  DEFAULT_STATUS_PROCESSORS,
  ExitCode,
  oneLine,
} from '../../common/index.js';
import { loadKubeConfig } from '../../cluster/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  appWindowsVerdict,
  clusterInfoOf,
  ClusterPool,
  primeRenders,
  resolveDestinations,
  scopeProjects,
  sharedClusterOptions,
  StateManager,
} from '../refresh/index.js';
import type {
  AppProjectContext,
  AppReport,
  AppWindowsVerdict,
  EngineOptions,
  Reconciliation,
  RunReport,
  SharedClusterOptions,
} from '../refresh/index.js';
import type { OperationReport } from '../../sync/index.js';
import type { RetryStrategy } from '../../apps/index.js';
import { projectConditions, ProjectSet } from '../../apps/index.js';
import type { ProjectCondition } from '../../apps/index.js';
import type { PreparedRun } from './prepare.js';
import { appDoneEvent, operateApp, pendingFinal, processApps, refreshApp } from './processors.js';
import type { AppWork } from './processors.js';

/** A one-shot run: its apps, and what it does with each beyond a refresh (an operation, waits, retries). */
export interface RunOptions extends EngineOptions {
  apps: readonly Application[];
  /**
   * The operation processor: when set, every app that compared cleanly gets an operation (a sync) with
   * the unmasked reconciliation, then is compared again for its final status (spec §8). A Failed
   * operation is retried per `retry` (attempt n waits duration * factor^n, capped), each attempt on a
   * fresh comparison.
   */
  operation?: (
    app: Application,
    reconciliation: Reconciliation,
    signal: AbortSignal,
  ) => Promise<OperationReport>;
  /**
   * After a Succeeded sync, wait until each app's health is no longer Progressing (sync --health), in the
   * refresh queue (health-wait.ts): a waiting app holds no worker.
   */
  waitForHealth?: boolean;
  /** Retries of failed operations; an app's own spec.syncPolicy.retry is used when this is unset. */
  retry?: RetryStrategy | undefined;
  /**
   * Cluster work started while the apps loaded (prepare.ts): the kubeconfig is taken from it, and its
   * connection by the apps of its context. Replaces `loadKubeConfig`.
   */
  prepared?: PreparedRun;
  /**
   * When the app's project sync windows refuse a sync (a manual one, as the CLI's): `enforce` (default)
   * ends the app with that error before its operation starts, so nothing is written; `report` (sync
   * --dry-run) runs the operation anyway. Either way `AppReport.syncWindows` shows the windows that apply
   * (windows.ts), judged when the app is set up and again when its operation starts.
   */
  syncWindows?: 'enforce' | 'report';
}

const appKey = (app: Application, argocdNamespace: string): string =>
  `${app.namespace ?? argocdNamespace}/${app.name}`;

export { MAX_TRANSIENT_RETRIES } from '../refresh/index.js';
export { HEALTH_RECHECK_MS } from './health-wait.js';

export class Run {
  readonly #o: RunOptions;

  constructor(options: RunOptions) {
    this.#o = options;
  }

  async run(): Promise<RunReport> {
    const o = this.#o;
    const now = o.now ?? Date.now;
    const started = now();
    const argocdNamespace = o.argocdNamespace ?? 'argocd';
    const signal = o.signal;
    const reports: AppReport[] = o.apps.map((app) => ({
      app,
      destination: {
        ...(app.destination.server ? { server: app.destination.server } : {}),
        ...(app.destination.name ? { name: app.destination.name } : {}),
        namespace: app.destination.namespace,
      },
    }));

    // What the settings decide, before any render starts: a failure here leaves nothing running.
    let shared: SharedClusterOptions;
    try {
      shared = {
        ...sharedClusterOptions({ ...o, onEvent: o.onEvent }, o.apps),
        // A run with no operation (`diff`) waits for nothing: it compares the state as listed and opens
        // no watch (one TLS connection and request per kind; issue 31). A sync follows its writes.
        watch: o.operation !== undefined,
      };
    } catch (err) {
      (await o.prepared?.connection)?.close(); // nothing is left running
      throw err;
    }

    // Projects: what the project says without a cluster (missing project, app namespace, source repos)
    // is known now, so a refused app's repository is never fetched.
    // Each project as Argo CD's GetAppProjectByName gives it: extended by the cluster and repository
    // Secrets scoped to it (src/controller/refresh/scoped.ts).
    const scoped = await scopeProjects(
      o.projects ?? new ProjectSet(),
      o.apps.map((app) => app.project),
      {
        clusterSecrets: o.clusterSecrets,
        projectRepositories: o.source.projectRepositories?.bind(o.source),
        onWarning: o.onWarning,
      },
    );
    const projects = scoped.projects;
    const projectClusters = o.projectClusters ?? scoped.projectClusters;
    const projectCheck = (app: Application, cluster?: AppProjectContext['cluster']): ProjectCondition[] =>
      projectConditions(app, projects.get(app.project), cluster, {
        controllerNamespace: argocdNamespace,
        projectClusters,
      });
    const refusedEarly = new Set(o.apps.filter((app) => projectCheck(app).length > 0));

    // Plugin renders read their app's cluster (KUBE_VERSION): from the pool, once there is one; a run that
    // ends before it rejects them, so no render waits for a pool that never comes.
    let poolReady!: (pool: ClusterPool) => void;
    let noPool!: (err: unknown) => void;
    const pooled = new Promise<ClusterPool>((resolve, reject) => {
      poolReady = resolve;
      noPool = reject;
    });
    pooled.catch(() => undefined);
    o.source.useClusterInfo?.(async (app) => clusterInfoOf(await (await pooled).clusterOf(app)));
    // Rendering needs no cluster: the renders the refresh workers start with begin while the kubeconfig
    // (and the Kubernetes client library, a few hundred ms to load) loads, so Git runs meanwhile.
    const source = primeRenders(
      o.source,
      o.apps
        .filter((app) => !refusedEarly.has(app))
        .slice(0, Math.max(1, o.statusProcessors ?? DEFAULT_STATUS_PROCESSORS)),
    );
    // A kubeconfig that does not load fails the whole run (every app would fail the same way).
    let kubeConfig: KubeConfig;
    try {
      kubeConfig = await (o.prepared?.kubeConfig ??
        (o.loadKubeConfig ?? loadKubeConfig)({
          kubeconfig: o.kubeconfig,
          context: o.context,
        }));
    } catch (err) {
      noPool(err);
      await source.settle();
      (await o.prepared?.connection)?.close();
      throw err;
    }
    // Sync windows: judged now for the report, and again when the app's operation starts.
    const wallClock = o.wallClock ?? ((): Date => new Date());
    const warned = new Set<string>();
    const judgeWindows = (r: AppReport): AppWindowsVerdict => {
      const verdict = appWindowsVerdict(r.app, r.project, wallClock());
      if (verdict.report) r.syncWindows = verdict.report;
      else delete r.syncWindows;
      for (const m of verdict.warnings) {
        if (warned.has(m)) continue;
        warned.add(m);
        o.onWarning?.(m);
      }
      return verdict;
    };
    // Destinations -> contexts (or cluster Secrets) -> one ClusterState each (destinations.ts).
    const destinations = resolveDestinations(reports, {
      kubeConfig,
      projects,
      projectCheck,
      refusedEarly,
      clusterSecrets: o.clusterSecrets,
      projectClusters,
      inClusterEnabled: o.settings?.inClusterEnabled !== false,
      judgeWindows,
    });
    const { contextOf, accessOf, projectOf } = destinations;
    const emit = o.onEvent;
    emit?.({
      type: 'run-start',
      apps: reports.map((r) => ({
        name: r.app.name,
        ...(r.destination.context ? { cluster: r.destination.context } : {}),
      })),
      clusters: [...new Set([...contextOf.values()].map((key) => accessOf.get(key)?.displayName ?? key))],
    });
    for (const r of reports)
      if (r.error) emit?.({ type: 'app-done', app: r.app.name, error: r.error.message });
    const pool = new ClusterPool({
      kubeConfig,
      apps: o.apps,
      destinations,
      prepared: o.prepared?.connection,
      connect: o.connect,
      discovery: o.discovery,
      client: o.client,
      state: shared,
    });
    poolReady(pool);
    // A sync compares each app again after its operation: unchanged pairs reuse their comparison.
    const manager = new StateManager({
      reuseComparisons: Boolean(o.operation),
      ...o,
      source,
      clusterOf: (app) => pool.clusterOf(app),
      projectOf: (app) => projectOf.get(app),
    });

    // Two queues, as Argo CD's controller: refresh (compare) and operation (sync), each with its workers
    // (processors.ts). The run ends when every app is finished, or when `signal` aborts.
    const works = new Map<string, AppWork>();
    for (const r of reports)
      if (!r.error) works.set(appKey(r.app, argocdNamespace), { report: r, stage: 'refresh', attempt: 0 });
    const runSignal = signal ?? new AbortController().signal;
    await processApps({
      works,
      refresh: (w) => refreshApp(w, manager, runSignal, { ...o, emit }),
      operate: (w) =>
        operateApp(w, runSignal, {
          judgeWindows,
          syncWindows: o.syncWindows ?? 'enforce',
          operation: o.operation!,
        }),
      statusWorkers: Math.max(1, o.statusProcessors ?? DEFAULT_STATUS_PROCESSORS),
      operationWorkers: o.operation ? Math.max(1, o.operationProcessors ?? DEFAULT_OPERATION_PROCESSORS) : 0,
      signal,
      runSignal,
      emit,
      onWarning: o.onWarning,
    });
    // Stopped (Ctrl-C, --timeout) after some operations ended but before their refresh: refresh them now.
    await finalRefresh([...works.values()].filter(pendingFinal), manager, emit);
    await source.settle(); // renders of apps that never reached a refresh (their destination failed)
    manager.saveComparisonMemo();

    const requests = await pool.close();
    for (const r of reports) {
      if (!r.comparison && !r.error) {
        r.error = {
          message: `app "${r.app.name}": failed to compare: interrupted`,
          exitCode: ExitCode.INTERRUPTED,
        };
      }
    }
    return { apps: reports, requests, interrupted: signal?.aborted ?? false, durationMs: now() - started };
  }
}

/** How long the refreshes owed after a stop may take in all (run.ts `finalRefresh`). */
export const FINAL_REFRESH_GRACE_MS = 10_000;

/**
 * The refresh each app whose operation ended still owes when the run is stopped: against the live cache
 * (still running) and the render its operation synced (Git is not asked again: the run's signal stopped
 * it), bounded by `FINAL_REFRESH_GRACE_MS`. An app it cannot refresh keeps no comparison: its report says
 * its state after the operation was not observed, never the state from before it.
 */
async function finalRefresh(
  works: readonly AppWork[],
  manager: StateManager,
  emit: RunOptions['onEvent'],
): Promise<void> {
  if (works.length === 0) return;
  const grace = AbortSignal.timeout(FINAL_REFRESH_GRACE_MS);
  await Promise.all(
    works.map(async (w) => {
      try {
        w.report.comparison = await manager.compare(w.report.app, grace, { rendered: w.rendered });
      } catch (err) {
        // Its state after the operation is unknown; the stop (130, or 1 for --timeout) decides the exit.
        delete w.report.comparison;
        w.report.error = {
          message: `app "${w.report.app.name}": failed to refresh after the operation: ${oneLine(err)}`,
          exitCode: ExitCode.INTERRUPTED,
        };
      }
      w.stage = 'done';
      emit?.(appDoneEvent(w.report));
    }),
  );
}
