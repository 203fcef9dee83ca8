/**
 * `Run`: the one-shot refresh loop (Argo CD's application controller, in the foreground, spec §8).
 *
 * 1. Loads the kubeconfig once (a kubeconfig that fails to load rejects the run: it is the one error every
 *    app would share) and resolves each app's destination to a context, or else to one of
 *    `clusterSecrets` (Argo CD cluster Secrets; src/cluster destination.ts: a context wins when both
 *    match); apps whose destination does not resolve get that error, the others go on. Each app is then
 *    held to its AppProject (`projects`, extended by the cluster and repository Secrets scoped to it:
 *    src/controller/scoped.ts; Argo CD's refreshAppConditions): a missing project or a refused
 *    app namespace, repository or destination is that app's error (exit 2, never compared nor synced);
 *    apps refused without a cluster (project, namespace, repository) are not even rendered. With argocd-cm
 *    `cluster.inClusterEnabled: "false"` an in-cluster destination is that app's error too. Meanwhile the
 *    first app of each refresh worker starts rendering (Git needs no cluster; the first compare of the
 *    app takes it).
 * 2. One `ClusterState` per context (or cluster Secret): one connection and one live cache shared by every
 *    app of that cluster, scoped to their destination namespaces (a cluster Secret's `namespaces` and
 *    `clusterResources` narrow it, as Argo CD's cluster cache), started by the first app that needs it.
 * 3. Every app key (`<namespace>/<name>`) goes into the refresh queue (src/queue); `statusProcessors`
 *    workers (default 4) run the refresh processor (`StateManager.reconcile`, reported by `toReport`). With
 *    an operation (sync), the refreshed app goes to the operation queue with its reconciliation, whose
 *    `operationProcessors` workers (default 2) run it while other apps keep refreshing; then the app is
 *    refreshed again for its final state, and a Failed operation with retries left comes back to the
 *    refresh queue after its backoff. Processors return what
 *    comes next, as controller-runtime reconcilers do; a transient failure (5xx, 429, transport) is retried
 *    through the queue with per-app rate limiting (`MAX_TRANSIENT_RETRIES`), any other failure is recorded
 *    on that app, never hiding the others. Before each operation the app's AppProject sync windows are
 *    judged at `wallClock()` (windows.ts; a CLI sync is manual): a refused sync is that app's error
 *    (exit 2) and never starts, unless `syncWindows: 'report'` (dry run).
 * 4. The run ends when every app is finished (the completion predicate), or when `signal` aborts: apps not
 *    finished then carry an "interrupted" error and `interrupted` is true. Caches are stopped, connections
 *    closed.
 * The report lists apps in the order given, with the total API requests of the run.
 * Progress (`onEvent`, types.ts `RunEvent`): run-start, then per app render/compare (state.ts) and sync
 * events, per cluster the cache sync (cluster.ts), and app-done when an app is finished.
 */
import type { Application } from '../apps/index.js';
import {
  DEFAULT_OPERATION_PROCESSORS,
  DEFAULT_STATUS_PROCESSORS,
  DEFAULT_TRACKING_METHOD,
  ExitCode,
  GitopsError,
  OWN_FIELD_MANAGERS,
  oneLine,
} from '../common/index.js';
import { connect as defaultConnect, isRetryable, loadKubeConfig, resolveCluster } from '../cluster/index.js';
import type {
  ClientOptions,
  ClusterAccess,
  ClusterConnection,
  ClusterScope,
  ConnectOptions,
  DiscoveryOptions,
} from '../cluster/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { RateLimitingQueue } from '../queue/index.js';
import { ClusterState } from './cluster.js';
import { toReport } from './report.js';
import { StateManager } from './state.js';
import type { StateManagerOptions } from './state.js';
import type { AppReport, ComparisonResult, Reconciliation, RunEvent, RunReport } from './types.js';
import { UnsettledOperationError } from '../sync/index.js';
import type { OperationReport } from '../sync/index.js';
import type { RetryStrategy } from '../apps/index.js';
import type { RenderedApp, SourceService } from '../source/index.js';
import { knownTypeFieldsOf, overrideIgnoreRules, projectConditions, ProjectSet } from '../apps/index.js';
import type { AppProject, ProjectClusters, ProjectCondition } from '../apps/index.js';
import { destinationCluster } from './projects.js';
import { inClusterRefusal, scopeProjects } from './scoped.js';
import type { AppProjectContext } from './projects.js';
import { ResourceFilter } from './exclusions.js';
import { appWindowsVerdict, type AppWindowsVerdict } from './windows.js';
import type { PreparedRun } from './prepare.js';

export interface RunOptions extends Omit<StateManagerOptions, 'clusterOf'> {
  apps: readonly Application[];
  /** `--kubeconfig` / `--context` (the context `https://kubernetes.default.svc` means). */
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /**
   * Argo CD cluster Secrets (`--from-cluster`, `--clusters-file`): destinations no kubeconfig context
   * serves are reached with their credentials.
   */
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  /** Refresh workers (`--status-processors`). Default 4. */
  statusProcessors?: number;
  /** Operation (sync) workers (`--operation-processors`). Default 2. */
  operationProcessors?: number;
  discovery?: DiscoveryOptions;
  client?: ClientOptions;
  signal?: AbortSignal | undefined;
  /** Recovered problems (watch reconnects...). */
  onWarning?: (message: string) => void;
  /** Injected I/O (tests): how to connect and load kubeconfigs. */
  connect?: (options: ConnectOptions) => Promise<ClusterConnection>;
  loadKubeConfig?: (options: {
    kubeconfig?: string | undefined;
    context?: string | undefined;
  }) => Promise<KubeConfig>;
  now?: () => number;
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
  /** After a Succeeded sync, wait until each app's health is no longer Progressing (sync without --async). */
  waitForHealth?: boolean;
  /** Retries of failed operations; an app's own spec.syncPolicy.retry is used when this is unset. */
  retry?: RetryStrategy | undefined;
  /**
   * Cluster work started while the apps loaded (prepare.ts): the kubeconfig is taken from it, and its
   * connection by the apps of its context. Replaces `loadKubeConfig`.
   */
  prepared?: PreparedRun;
  /**
   * The AppProjects of the run (src/apps `ProjectSet`). Unset: an empty set, so only Argo CD's built-in
   * allow-all `default` project is known. An app whose project is missing or refuses it ends with that
   * condition as its error (exit 2), neither rendered nor compared nor synced.
   */
  projects?: ProjectSet | undefined;
  /**
   * The clusters scoped to each project (permitOnlyProjectScopedClusters); default: the `clusterSecrets`
   * whose `project` names it (src/controller/scoped.ts, which also extends each project).
   */
  projectClusters?: ProjectClusters | undefined;
  /** The wall clock AppProject sync windows are judged at (default: the system clock). */
  wallClock?: () => Date;
  /**
   * When the app's project sync windows refuse a sync (a manual one, as the CLI's): `enforce` (default)
   * ends the app with that error before its operation starts, so nothing is written; `report` (sync
   * --dry-run) runs the operation anyway. Either way `AppReport.syncWindows` shows the windows that apply
   * (windows.ts), judged when the app is set up and again when its operation starts.
   */
  syncWindows?: 'enforce' | 'report';
}

/**
 * `source`, with the first render of each of `apps` already started: the first `renderApp` of such an
 * app gets that render, later ones render again. `settle()` waits for started renders nobody took.
 */
function primeRenders(
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
    get stats() {
      return source.stats;
    },
    close: () => source.close(),
    settle: async () => {
      await Promise.allSettled(started.values());
    },
  };
}

const appKey = (app: Application, argocdNamespace: string): string =>
  `${app.namespace ?? argocdNamespace}/${app.name}`;

function appError(app: Application, err: unknown): { message: string; exitCode: number; hint?: string } {
  const text = oneLine(err);
  const message = text.startsWith(`app "${app.name}"`) ? text : `app "${app.name}": ${text}`;
  const hint = err instanceof GitopsError ? err.hint : undefined;
  return {
    message,
    exitCode: err instanceof GitopsError ? err.exitCode : ExitCode.FAILURE,
    ...(hint ? { hint } : {}),
  };
}

/**
 * The app's error for the project's conditions, in Argo CD's words (exit 2): the app is neither compared
 * nor synced, as Argo CD's refresh stops at them (sync Unknown, health Unknown).
 */
function projectError(
  app: Application,
  project: AppProject | undefined,
  conditions: readonly ProjectCondition[],
): { message: string; exitCode: number; hint: string } {
  return {
    message: `app "${app.name}": failed to compare: ${conditions.map((c) => c.message).join('; ')}`,
    exitCode: ExitCode.FAILURE,
    hint: project
      ? `AppProject "${project.name}" (${project.origin}) refuses this app, as Argo CD does (${conditions[0]!.type})`
      : `pass the AppProject manifest with --project-file or -f, or read the projects of the Argo CD namespace with --from-cluster`,
  };
}

function appDoneEvent(r: AppReport): RunEvent {
  if (r.error) return { type: 'app-done', app: r.app.name, error: r.error.message };
  const c = r.comparison;
  return { type: 'app-done', app: r.app.name, ...(c ? { sync: c.sync, health: c.health.status } : {}) };
}

/** One app's way through the run: refresh -> (operate -> final refresh, maybe again) -> done. */
interface AppWork {
  report: AppReport;
  stage: 'refresh' | 'operate' | 'final' | 'done';
  /** Operations run so far. */
  attempt: number;
  reconciliation?: Reconciliation;
  before?: ComparisonResult | undefined;
}

/** What a processor decided (controller-runtime's Result): finished, or the queue the app goes to next. */
interface ProcessResult {
  next?: 'refresh' | 'operation';
  /** With `next: 'refresh'`: come back after this long (a sync retry's backoff). */
  afterMs?: number;
}

/** Transient failures (5xx, 429, transport) of one app retried through the queue before it is an error. */
export const MAX_TRANSIENT_RETRIES = 3;

/** The longest the wait for health goes without comparing again when the live cache reports no change. */
export const HEALTH_RECHECK_MS = 1000;

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
    const managers = new Set([
      ...(o.fieldManagers ?? OWN_FIELD_MANAGERS),
      ...[
        ...o.apps.flatMap((a) => a.ignoreDifferences),
        ...(o.ignoreDifferences ?? []),
        ...(o.settings ? overrideIgnoreRules(o.settings) : []),
      ].flatMap((r) => r.managedFieldsManagers ?? []),
    ]);
    let resourceFilter: ResourceFilter;
    let knownTypeFields: ReturnType<typeof knownTypeFieldsOf>;
    try {
      resourceFilter = new ResourceFilter(o.settings);
      knownTypeFields = knownTypeFieldsOf(o.settings);
    } catch (err) {
      (await o.prepared?.connection)?.close(); // nothing is left running
      throw err;
    }

    // Projects: what the project says without a cluster (missing project, app namespace, source repos)
    // is known now, so a refused app's repository is never fetched.
    // Each project as Argo CD's GetAppProjectByName gives it: extended by the cluster and repository
    // Secrets scoped to it (src/controller/scoped.ts).
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

    // Destinations -> contexts (or cluster Secrets) -> one ClusterState each. Keyed by the context name,
    // or "secret <server>" for a cluster Secret (a context may have any name).
    const clusters = new Map<string, Promise<ClusterState>>();
    const contextOf = new Map<Application, string>();
    const accessOf = new Map<string, ClusterAccess>();
    /** A context's scope from the cluster Secret for the same cluster (the first app that names one). */
    const scopeOf = new Map<string, ClusterScope>();
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
      await source.settle();
      (await o.prepared?.connection)?.close();
      throw err;
    }
    const projectOf = new Map<Application, AppProjectContext>();
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
    for (const r of reports) {
      // Argo CD's refreshAppConditions: the project's conditions stop the app before any comparison. A
      // missing project or a refused app namespace is the only condition (getAppProj fails first).
      const project = projects.get(r.app.project);
      if (project) r.project = project;
      const early = refusedEarly.has(r.app) ? projectCheck(r.app) : [];
      if (early.length > 0 && (!project || early[0]!.type === 'UnknownError')) {
        r.error = projectError(r.app, project, early);
        continue;
      }
      try {
        const inClusterOn = o.settings?.inClusterEnabled !== false;
        const refusedFirst = inClusterRefusal(r.app.destination, undefined, inClusterOn, o.clusterSecrets);
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
        const disabled = inClusterRefusal(r.app.destination, cluster, inClusterOn, o.clusterSecrets);
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
          projectClusters,
        });
        judgeWindows(r);
      } catch (err) {
        // ValidatePermissions reports a destination that does not resolve beside refused sources.
        r.error =
          early.length > 0
            ? projectError(r.app, project, [...early, { type: 'InvalidSpecError', message: oneLine(err) }])
            : appError(r.app, err);
      }
    }
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
    // The prepared connection: taken by the first cluster connected; one of another context is closed.
    let preparedConn = o.prepared?.connection;
    let unused: ClusterConnection | undefined;
    const takePrepared = (): Promise<ClusterConnection | undefined> | undefined => {
      const p = preparedConn;
      preparedConn = undefined;
      return p;
    };
    const putBack = (conn: ClusterConnection | undefined): void => {
      unused = conn;
    };
    const clusterOf = (app: Application): Promise<ClusterState> => {
      const context = contextOf.get(app)!;
      let p = clusters.get(context);
      if (!p) {
        const namespaces = o.apps
          .filter((a) => contextOf.get(a) === context)
          .map((a) => a.destination.namespace);
        const access = accessOf.get(context);
        const fresh = (): Promise<ClusterConnection> =>
          (o.connect ?? defaultConnect)({
            kubeConfig,
            destination: app.destination,
            ...(access ? { access } : {}),
            ...(o.discovery ? { discovery: o.discovery } : {}),
            ...(o.client ? { client: o.client } : {}),
          });
        // The prepared connection serves its own context, once, when no cluster Secret adds its access or
        // scope to that context; anything else connects now.
        const prepared = access ? undefined : takePrepared();
        p = (
          prepared
            ? prepared.then((conn) => (conn?.context === context ? conn : (putBack(conn), fresh())))
            : fresh()
        ).then(
          (conn) =>
            new ClusterState({
              conn,
              namespaces,
              ...(conn.scope || scopeOf.has(context) ? { scope: conn.scope ?? scopeOf.get(context) } : {}),
              tracking: {
                method: o.trackingMethod ?? DEFAULT_TRACKING_METHOD,
                ...(o.instanceLabelKey ? { instanceLabelKey: o.instanceLabelKey } : {}),
                ...(o.settings?.installationId ? { installationId: o.settings.installationId } : {}),
              },
              managers,
              appliers: new Set(o.fieldManagers ?? OWN_FIELD_MANAGERS),
              resourceFilter,
              clusterURL: app.destination.server ?? conn.server,
              ...(o.onWarning ? { onWarning: o.onWarning } : {}),
              ...(emit ? { onEvent: emit } : {}),
              knownTypeFields,
            }),
        );
        clusters.set(context, p);
        // A failed connection is not kept: the app's retry (a transient failure) connects again.
        const failed = p;
        failed.catch(() => {
          if (clusters.get(context) === failed) clusters.delete(context);
        });
      }
      return p;
    };
    // A sync compares each app again after its operation: unchanged pairs reuse their comparison.
    const manager = new StateManager({
      reuseComparisons: Boolean(o.operation),
      ...o,
      source,
      clusterOf,
      projectOf: (app) => projectOf.get(app),
    });

    // Two queues, as Argo CD's controller: refresh (compare) and operation (sync), each with its workers.
    // Processors return what happens next; the run ends when every app is finished (the completion
    // predicate), or when `signal` aborts.
    const works = new Map<string, AppWork>();
    for (const r of reports)
      if (!r.error) works.set(appKey(r.app, argocdNamespace), { report: r, stage: 'refresh', attempt: 0 });
    const refreshQueue = new RateLimitingQueue<string>({ name: 'refresh' });
    const operationQueue = new RateLimitingQueue<string>({ name: 'operation' });
    const finished = (): boolean => [...works.values()].every((w) => w.stage === 'done');
    const shutDownWhenFinished = (): void => {
      if (!finished()) return;
      refreshQueue.shutDown();
      operationQueue.shutDown();
    };
    const runSignal = signal ?? new AbortController().signal;
    const finish = (w: AppWork): void => {
      w.stage = 'done';
      emit?.(appDoneEvent(w.report));
    };
    const fail = (w: AppWork, err: unknown): void => {
      w.report.error = runSignal.aborted
        ? {
            message: `app "${w.report.app.name}": failed to compare: interrupted`,
            exitCode: ExitCode.INTERRUPTED,
          }
        : appError(w.report.app, err);
      finish(w);
    };
    const worker = async (
      queue: RateLimitingQueue<string>,
      process: (w: AppWork) => Promise<ProcessResult>,
    ): Promise<void> => {
      for (;;) {
        let key: string;
        try {
          const got = await queue.get(signal);
          if (got.shutdown) return;
          key = got.key;
        } catch {
          return; // aborted
        }
        const w = works.get(key)!;
        try {
          const result = await process(w);
          queue.forget(key);
          if (result.next === 'operation') operationQueue.add(key);
          else if (result.next === 'refresh') {
            if (result.afterMs) refreshQueue.addAfter(key, result.afterMs);
            else refreshQueue.add(key);
          } else finish(w);
        } catch (err) {
          // A transient failure (5xx, 429, a dropped connection) of one app is retried with per-app
          // backoff (client-go's default controller rate limiter); anything else is that app's error.
          if (!runSignal.aborted && isRetryable(err) && queue.numRequeues(key) < MAX_TRANSIENT_RETRIES) {
            o.onWarning?.(`app "${w.report.app.name}": ${oneLine(err)}; retrying`);
            queue.addRateLimited(key);
          } else fail(w, err);
        } finally {
          queue.done(key);
          shutDownWhenFinished();
        }
      }
    };
    const refresh = (w: AppWork): Promise<ProcessResult> => this.#refresh(w, manager, runSignal);
    const operate = async (w: AppWork): Promise<ProcessResult> => {
      // Argo CD's syncWindowPreventsSync, before any task: a refused sync never starts.
      const windows = judgeWindows(w.report);
      if (windows.refusal && (o.syncWindows ?? 'enforce') === 'enforce') throw windows.refusal;
      const operation = await this.#o.operation!(w.report.app, w.reconciliation!, runSignal).catch(
        (err: unknown) => {
          // It ran, but its writes cannot be read back: report how it went, then the app's error.
          if (err instanceof UnsettledOperationError) {
            w.report.operation = { ...err.operation, retries: w.attempt };
            w.attempt++;
          }
          throw err;
        },
      );
      operation.retries = w.attempt;
      w.report.operation = operation;
      w.attempt++;
      w.stage = 'final';
      return { next: 'refresh' };
    };
    for (const key of works.keys()) refreshQueue.add(key);
    shutDownWhenFinished();
    const statusWorkers = Math.max(1, o.statusProcessors ?? DEFAULT_STATUS_PROCESSORS);
    const operationWorkers = o.operation
      ? Math.max(1, o.operationProcessors ?? DEFAULT_OPERATION_PROCESSORS)
      : 0;
    const size = Math.max(1, works.size);
    await Promise.all([
      ...Array.from({ length: Math.min(statusWorkers, size) }, () => worker(refreshQueue, refresh)),
      ...Array.from({ length: Math.min(operationWorkers, size) }, () => worker(operationQueue, operate)),
    ]);
    refreshQueue.shutDown();
    operationQueue.shutDown();
    await source.settle(); // renders of apps that never reached a refresh (their destination failed)

    let requests = 0;
    (await takePrepared())?.close();
    unused?.close();
    for (const p of clusters.values()) {
      const state = await p.catch(() => undefined);
      if (!state) continue;
      requests += state.conn.client.counts().total;
      await state.close();
    }
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

  /**
   * As `argocd app sync` without --async: after a Succeeded sync, compare again until the app's health is
   * no longer Progressing (or the signal aborts: the last comparison stands). It compares again on the
   * next live-cache event seen since the last comparison began (one that lands during a comparison is
   * not lost), and at the latest every `HEALTH_RECHECK_MS` without one: a wait never depends on one event.
   */
  async #waitForHealth(
    app: Application,
    manager: StateManager,
    reconciliation: Reconciliation,
    comparison: ComparisonResult,
    signal: AbortSignal,
  ): Promise<ComparisonResult> {
    let current = comparison;
    const cache = reconciliation.cache;
    let changes = 0;
    let wake: (() => void) | undefined;
    const seen = (): void => {
      changes++;
      wake?.();
    };
    const off = cache.onEvent(seen);
    const offLost = cache.onLostChange(seen);
    try {
      while (current.health.status === 'Progressing' && !signal.aborted) {
        // A Progressing resource whose watch is lost would never report its end: say so rather than wait.
        for (const r of current.resources) {
          if (r.health?.status !== 'Progressing') continue;
          const lost = cache.lost(r);
          if (lost !== undefined)
            throw new Error(
              `failed to wait for health: ${r.group}/${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} cannot be followed: ${lost}`,
            );
        }
        if (changes === 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, HEALTH_RECHECK_MS);
            function done(): void {
              clearTimeout(timer);
              wake = undefined;
              signal.removeEventListener('abort', done);
              resolve();
            }
            wake = done;
            signal.addEventListener('abort', done, { once: true });
          });
        }
        if (signal.aborted) break;
        changes = 0;
        current = await manager.compare(app, signal);
      }
      return current;
    } finally {
      off();
      offLost();
    }
  }

  /**
   * The refresh processor. Without an operation: compare, done. With one: the first refresh keeps the
   * unmasked reconciliation and hands the app to the operation queue; the refresh after the operation
   * reports the final state (after waiting for health, as `argocd app sync` without --async) and, when a
   * Failed operation has retries left, comes back after the backoff for a fresh comparison and operation.
   */
  async #refresh(w: AppWork, manager: StateManager, signal: AbortSignal): Promise<ProcessResult> {
    const app = w.report.app;
    if (w.stage === 'refresh') {
      if (!this.#o.operation) {
        w.report.comparison = await manager.compare(app, signal);
        return {};
      }
      w.reconciliation = await manager.reconcile(app, signal);
      w.before = toReport(w.reconciliation);
      w.stage = 'operate';
      return { next: 'operation' };
    }
    const operation = w.report.operation!;
    w.report.comparison = operation.dryRun || signal.aborted ? w.before : await manager.compare(app, signal);
    if (this.#o.waitForHealth && !operation.dryRun && operation.phase === 'Succeeded') {
      w.report.comparison = await this.#waitForHealth(
        app,
        manager,
        w.reconciliation!,
        w.report.comparison!,
        signal,
      );
    }
    const retry = this.#o.retry ?? app.syncPolicy.retry;
    const limit = retry?.limit ?? 0;
    const attempt = w.attempt - 1;
    if (retry && operation.phase === 'Failed' && !signal.aborted && (limit < 0 || attempt < limit)) {
      const { durationMs, factor, maxDurationMs } = retry.backoff;
      w.stage = 'refresh';
      return { next: 'refresh', afterMs: Math.min(durationMs * factor ** attempt, maxDurationMs) };
    }
    return {};
  }
}
