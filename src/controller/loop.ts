/**
 * `Loop`: the continuous reconcile loop (issue 22; Argo CD's application controller, running until told to
 * stop): the engine of `sync --watch` and `kubectl gitops controller`, behind `ReconcileLoop`
 * (loop-types.ts). docs/loop.md states its rules with their Argo CD sources.
 *
 * - Apps come and go (`upsertApp`, `removeApp`); each is keyed `<namespace>/<name>`. A changed spec asks
 *   for a level-2 refresh (3 when its sources changed); an unchanged one (a status write seen back) none.
 *   An app read from a cluster brings its last operation (`status.operationState`, loop-state.ts).
 * - Two queues (src/queue, client-go semantics: an app is never processed twice at once, adds during
 *   processing coalesce; refresh requests keep the highest level): refresh (`statusProcessors` workers,
 *   default 4) and operation (`operationProcessors`, default 2); processors in loop-process.ts.
 * - Triggers: the resync timer per app (`appResyncMs` + up to `appResyncJitterMs`, after every refresh:
 *   Argo CD's `timeout.reconciliation` and its jitter; 0 turns it off), live-cache events on the app's
 *   objects (loop-live.ts, level 1, batched), and `requestRefresh` (Git poller, file watcher, Application
 *   watch). A request at level >= 2 makes the source service forget what it resolved of the app's
 *   repositories (`SourceService.forgetRevisions`), so the refresh sees the branch's new commit.
 * - Clusters: one `ClusterPool` (destinations.ts) for the loop's life: one connection and live cache per
 *   cluster, kept across refreshes; a cluster whose cache does not cover a new app's destination
 *   namespace is connected (listed) again (`ClusterPool.rescope`).
 * - Sharding (`ownsApp`, `setOwnership`): apps this loop does not own are kept but neither refreshed nor
 *   operated; a new ownership asks a refresh of every app.
 * - Shutdown (`shutdown(timeoutMs)`, or `signal`: `shutdownTimeoutMs`, default 0): no operation starts any
 *   more, refreshes and timers stop at once, running operations get `timeoutMs` to end before their signal
 *   aborts; then live caches and connections close and `run()` resolves. Idempotent.
 * Nothing waits for an event that may not come: queues wake on adds or shutdown, timers are the clock's.
 */
import type { Application } from '../apps/index.js';
import { instanceName, projectConditions, ProjectSet } from '../apps/index.js';
import type { ProjectClusters, ProjectCondition } from '../apps/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { isRetryable, loadKubeConfig } from '../cluster/index.js';
import type { LiveStateCache } from '../cluster/index.js';
import {
  DEFAULT_ARGOCD_NAMESPACE,
  DEFAULT_OPERATION_PROCESSORS,
  DEFAULT_STATUS_PROCESSORS,
  oneLine,
  realClock,
} from '../common/index.js';
import type { Clock } from '../common/index.js';
import { RateLimitingQueue } from '../queue/index.js';
import { repoKey } from '../source/index.js';
import type { OperationReport } from '../sync/index.js';
import { DEFAULT_SELF_HEAL_BACKOFF } from './autosync.js';
import type { SelfHealBackoff } from './autosync.js';
import type { ClusterState } from './cluster.js';
import { sharedClusterOptions } from './cluster-options.js';
import { ClusterPool, resolveDestinations } from './destinations.js';
import type { Destinations } from './destinations.js';
import { LiveRouter, resourceIndexKey } from './loop-live.js';
import { operateEntry, refreshEntry } from './loop-process.js';
import type { LoopCore } from './loop-process.js';
import { lastOperationOf, maxRefresh, pinnedApp } from './loop-state.js';
import type { LoopEntry } from './loop-state.js';
import type {
  AppLoopState,
  AutoSyncMode,
  CompareLevel,
  LoopEvent,
  LoopEventHandler,
  OperationRequest,
  ReconcileLoop,
  RefreshReason,
} from './loop-types.js';
import { appError, MAX_TRANSIENT_RETRIES } from './processors.js';
import type { AppProjectContext } from './projects.js';
import type { RunOptions } from './run.js';
import { scopeProjects } from './scoped.js';
import { StateManager } from './state.js';
import type { AppReport, ComparisonResult, Reconciliation } from './types.js';
import { appWindowsVerdict } from './windows.js';

export interface LoopOptions extends Omit<
  RunOptions,
  'apps' | 'operation' | 'onEvent' | 'waitForHealth' | 'retry' | 'syncWindows' | 'prepared'
> {
  /** The apps to start with (more come through `upsertApp`). */
  apps?: readonly Application[];
  autoSync: AutoSyncMode;
  /** Argo CD's `timeout.reconciliation`: a level-2 refresh this long after each refresh. Default 180000; 0: none. */
  appResyncMs?: number;
  /** Up to this much is added to each resync (`timeout.reconciliation.jitter`). Default 60000. */
  appResyncJitterMs?: number;
  /** `--self-heal-timeout-seconds`, used when `selfHealBackoff` is null. Default 0. */
  selfHealTimeoutMs?: number;
  /** `--self-heal-backoff-*`: default 2 s, x3, cap 300 s; null: the flat timeout. */
  selfHealBackoff?: SelfHealBackoff | null;
  /** Runs one sync (src/sync `runOperation`, with the request's flags). */
  operation: (
    app: Application,
    reconciliation: Reconciliation,
    request: OperationRequest,
    signal: AbortSignal,
  ) => Promise<OperationReport>;
  onEvent?: LoopEventHandler;
  /** Timers, queue delays and durations (tests: a FakeClock). */
  clock?: Clock;
  /** Random in [0, 1) for the resync jitter. Default Math.random. */
  random?: () => number;
  /** Sharding filter: apps it refuses are neither refreshed nor operated. Default: every app. */
  ownsApp?: (app: Application) => boolean;
  /** Live-cache events are collected this long before their refreshes are asked. Default 100 ms. */
  eventBatchMs?: number;
  /** The time running operations get when `signal` aborts. Default 0 (they are aborted at once). */
  shutdownTimeoutMs?: number;
}

const keyOf = (app: Application, argocdNamespace: string): string =>
  `${app.namespace ?? argocdNamespace}/${app.name}`;

const specOf = (app: Application): string =>
  JSON.stringify((app.manifest as { spec?: unknown }).spec ?? null);

export class Loop implements ReconcileLoop {
  #o: LoopOptions;
  readonly #ns: string;
  readonly #clock: Clock;
  readonly #entries = new Map<string, LoopEntry>();
  readonly #refreshQueue: RateLimitingQueue<string>;
  readonly #operationQueue: RateLimitingQueue<string>;
  /** Aborts refreshes at shutdown. */
  readonly #refreshAbort = new AbortController();
  /** Aborts running operations when the shutdown's time is up. */
  readonly #operationAbort = new AbortController();
  #owns: (app: Application) => boolean;
  #started = false;
  #stopping = false;
  #shutdown: Promise<void> | undefined;
  #workers: Promise<void> | undefined;
  #stopReason = 'shutdown';
  // Set once `run()` has loaded the kubeconfig and projects.
  #kubeConfig: KubeConfig | undefined;
  #projects = new ProjectSet();
  #projectClusters: ProjectClusters | undefined;
  #pool: ClusterPool | undefined;
  #manager: StateManager | undefined;
  #router: LiveRouter | undefined;
  readonly #dest: Destinations = {
    contextOf: new Map(),
    accessOf: new Map(),
    scopeOf: new Map(),
    projectOf: new Map(),
  };
  /** Apps pinned to a revision (operations) → the app they were made from (clusters and projects are keyed by it). */
  readonly #origin = new WeakMap<Application, Application>();
  readonly #watched = new WeakSet<ClusterState>();
  readonly #unsubscribe: Array<() => void> = [];
  /** Index key of a resource → app keys whose last comparison listed it. */
  readonly #byResource = new Map<string, Set<string>>();
  readonly #byInstance = new Map<string, string>();
  readonly #warned = new Set<string>();

  constructor(options: LoopOptions) {
    this.#o = options;
    this.#ns = options.argocdNamespace ?? DEFAULT_ARGOCD_NAMESPACE;
    this.#clock = options.clock ?? realClock;
    this.#owns = options.ownsApp ?? ((): boolean => true);
    this.#refreshQueue = new RateLimitingQueue<string>({ name: 'refresh', clock: this.#clock });
    this.#operationQueue = new RateLimitingQueue<string>({ name: 'operation', clock: this.#clock });
    for (const app of options.apps ?? []) this.upsertApp(app);
  }

  // ---- the door (ReconcileLoop) ----

  upsertApp(app: Application): void {
    const key = keyOf(app, this.#ns);
    const entry = this.#entries.get(key);
    if (!entry) {
      const seeded = lastOperationOf(app);
      const state: AppLoopState = { key, app, selfHealAttempts: seeded?.selfHealAttempts ?? 0 };
      if (seeded?.syncedRevision) state.syncedRevision = seeded.syncedRevision;
      if (seeded?.last.report)
        state.lastOperation = { request: seeded.last.request, report: seeded.last.report };
      const added: LoopEntry = { key, app, state, executing: false, resources: [], lastSync: seeded?.last };
      this.#entries.set(key, added);
      this.#byInstance.set(instanceName(app, this.#ns), key);
      this.#emit({ type: 'app-added', app: app.name, key });
      if (this.#kubeConfig) this.#setUp(added, true);
      this.requestRefresh(key, 2, 'initial');
      return;
    }
    const old = entry.app;
    const changed = specOf(old) !== specOf(app);
    this.#forgetSetup(old);
    entry.app = app;
    entry.state.app = app;
    if (this.#kubeConfig) this.#setUp(entry, changed);
    if (changed) {
      const sourcesChanged = JSON.stringify(old.sources) !== JSON.stringify(app.sources);
      this.requestRefresh(key, sourcesChanged ? 3 : 2, 'app-changed');
    }
  }

  removeApp(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#clearResync(entry);
    this.#index(entry, []);
    if (this.#byInstance.get(instanceName(entry.app, this.#ns)) === key)
      this.#byInstance.delete(instanceName(entry.app, this.#ns));
    this.#forgetSetup(entry.app);
    this.#emit({ type: 'app-removed', app: entry.app.name, key });
  }

  requestRefresh(key: string, level: CompareLevel, reason: RefreshReason, afterMs?: number): void {
    const entry = this.#entries.get(key);
    if (!entry || this.#stopping) return;
    if (afterMs && afterMs > 0) {
      // Delayed: the request is recorded when its time comes (a level-2 one then forgets revisions).
      const timer = this.#clock.setTimeout(() => {
        this.#timers.delete(timer);
        this.requestRefresh(key, level, reason);
      }, afterMs);
      this.#timers.add(timer);
      return;
    }
    if (level >= 2) for (const s of entry.app.sources) this.#o.source.forgetRevisions?.(s.repoURL);
    entry.pending = maxRefresh(entry.pending, { level, reason });
    this.#refreshQueue.add(key);
  }

  readonly #timers = new Set<unknown>();

  requestOperation(key: string, request: OperationRequest): void {
    const entry = this.#entries.get(key);
    if (!entry || this.#stopping) return;
    const same = (a: OperationRequest | undefined): boolean => JSON.stringify(a) === JSON.stringify(request);
    if (same(entry.operation?.request) || same(entry.next?.request)) return; // already asked
    const op = { request, attempt: 0 };
    // One operation at a time (Argo CD's app.operation): a request waiting is replaced, a running one ends first.
    if (entry.operation && (entry.executing || entry.state.running)) entry.next = op;
    else {
      entry.operation = op;
      this.#operationQueue.add(key);
    }
  }

  appsOfRepo(repoURL: string): string[] {
    const wanted = repoKey(repoURL);
    return [...this.#entries.values()]
      .filter((e) => e.app.sources.some((s) => repoKey(s.repoURL) === wanted))
      .map((e) => e.key);
  }

  state(key: string): AppLoopState | undefined {
    return this.#entries.get(key)?.state;
  }

  states(): AppLoopState[] {
    return [...this.#entries.values()].map((e) => e.state);
  }

  /** A new sharding filter: every app is refreshed (newly owned ones start, others stop at their next turn). */
  setOwnership(ownsApp: (app: Application) => boolean): void {
    this.#owns = ownsApp;
    for (const key of this.#entries.keys()) this.requestRefresh(key, 2, 'requested');
  }

  /** New AppProjects (a project changed): every app is held to them again and refreshed. */
  async setProjects(projects: ProjectSet): Promise<void> {
    this.#o = { ...this.#o, projects } as LoopOptions;
    if (!this.#kubeConfig) return;
    await this.#scopeProjects();
    for (const entry of this.#entries.values()) {
      this.#forgetSetup(entry.app);
      this.#setUp(entry, false);
      this.requestRefresh(entry.key, 2, 'project-changed');
    }
  }

  // ---- lifecycle ----

  async run(): Promise<void> {
    if (this.#started) throw new Error('the loop already runs');
    this.#started = true;
    if (this.#stopping) return this.#shutdown;
    const o = this.#o;
    const signal = o.signal;
    const onAbort = (): void => {
      this.#stopReason = 'signal';
      void this.shutdown(o.shutdownTimeoutMs ?? 0);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      const shared = sharedClusterOptions(
        { ...o, onEvent: (e) => this.#emit(e) },
        [...this.#entries.values()].map((e) => e.app),
      );
      const kubeConfig = await (o.loadKubeConfig ?? loadKubeConfig)({
        kubeconfig: o.kubeconfig,
        context: o.context,
      });
      await this.#scopeProjects();
      if (this.#stopping) return await this.#shutdown;
      this.#pool = new ClusterPool({
        kubeConfig,
        apps: () => [...this.#entries.values()].map((e) => e.app),
        destinations: this.#dest,
        connect: o.connect,
        discovery: o.discovery,
        client: o.client,
        state: shared,
      });
      this.#router = new LiveRouter({
        tracking: shared.tracking,
        clock: this.#clock,
        batchMs: o.eventBatchMs ?? 100,
        keyOfInstance: (instance) => this.#byInstance.get(instance),
        keysOfResource: (k) => this.#byResource.get(k) ?? [],
        flush: (keys) => {
          for (const key of keys) this.requestRefresh(key, 1, 'drift');
        },
      });
      this.#manager = new StateManager({
        reuseComparisons: true,
        diffText: false,
        ...o,
        onEvent: (e) => this.#emit(e),
        clusterOf: (app) => this.#clusterOf(app),
        projectOf: (app) => this.#dest.projectOf.get(this.#origin.get(app) ?? app),
      });
      this.#kubeConfig = kubeConfig;
      for (const entry of this.#entries.values()) this.#setUp(entry, false);
      const core = this.#core();
      const statusWorkers = Math.max(1, o.statusProcessors ?? DEFAULT_STATUS_PROCESSORS);
      const operationWorkers = Math.max(1, o.operationProcessors ?? DEFAULT_OPERATION_PROCESSORS);
      this.#workers = Promise.all([
        ...Array.from({ length: statusWorkers }, () => this.#refreshWorker(core)),
        ...Array.from({ length: operationWorkers }, () => this.#operationWorker(core)),
      ]).then(() => undefined);
      await this.#workers;
      await this.#shutdown;
    } catch (err) {
      await this.shutdown(0);
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  shutdown(timeoutMs: number): Promise<void> {
    this.#shutdown ??= this.#stop(timeoutMs);
    return this.#shutdown;
  }

  async #stop(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    this.#emit({ type: 'loop-stopping', reason: this.#stopReason });
    for (const timer of this.#timers) this.#clock.clearTimeout(timer);
    this.#timers.clear();
    for (const entry of this.#entries.values()) this.#clearResync(entry);
    this.#router?.stop();
    this.#refreshQueue.shutDown();
    this.#refreshAbort.abort(new Error('the loop is stopping'));
    // Operations waiting (or between retries) never start; running ones get `timeoutMs`.
    const limit = new AbortController();
    const timer = this.#clock.setTimeout(() => limit.abort(), Math.max(0, timeoutMs));
    try {
      await this.#operationQueue.shutDownWithDrain(limit.signal);
    } catch {
      this.#operationAbort.abort(new Error('the loop stopped: shutdown timeout'));
    } finally {
      this.#clock.clearTimeout(timer);
    }
    await this.#workers;
    for (const off of this.#unsubscribe.splice(0)) off();
    await this.#pool?.close();
  }

  // ---- workers ----

  async #refreshWorker(core: LoopCore): Promise<void> {
    const queue = this.#refreshQueue;
    for (;;) {
      const got = await queue.get();
      if (got.shutdown) return;
      const key = got.key;
      const entry = this.#entries.get(key);
      try {
        if (!entry || this.#stopping || !this.#owns(entry.app)) continue;
        const request = entry.pending ?? { level: 2 as const, reason: 'resync' as const };
        entry.pending = undefined;
        if (entry.executing) {
          entry.deferred = maxRefresh(entry.deferred, request); // the operation's end refreshes
          continue;
        }
        try {
          await refreshEntry(core, entry, request, this.#refreshAbort.signal);
          queue.forget(key);
        } catch (err) {
          if (this.#stopping) continue;
          entry.state.error = appError(entry.app, err);
          this.#emit({
            type: 'refreshed',
            app: entry.app.name,
            key,
            reason: request.reason,
            level: request.level,
            durationMs: 0,
            error: entry.state.error.message,
          });
          if (isRetryable(err) && queue.numRequeues(key) < MAX_TRANSIENT_RETRIES) {
            this.#o.onWarning?.(`app "${entry.app.name}": ${oneLine(err)}; retrying`);
            entry.pending = maxRefresh(entry.pending, request);
            queue.addRateLimited(key);
            continue;
          }
          queue.forget(key);
        }
        if (this.#entries.get(key) === entry) this.#scheduleResync(entry);
      } finally {
        queue.done(key);
      }
    }
  }

  async #operationWorker(core: LoopCore): Promise<void> {
    const queue = this.#operationQueue;
    for (;;) {
      const got = await queue.get();
      if (got.shutdown) return;
      const key = got.key;
      const entry = this.#entries.get(key);
      try {
        if (!entry || !entry.operation) continue;
        if (!this.#owns(entry.app)) {
          this.#o.onWarning?.(
            `app "${entry.app.name}": operation dropped: the app is no longer this controller's`,
          );
          entry.operation = undefined;
          continue;
        }
        await operateEntry(core, entry, this.#operationAbort.signal);
      } catch (err) {
        this.#o.onWarning?.(`app "${entry?.app.name ?? key}": ${oneLine(err)}`);
      } finally {
        queue.done(key);
      }
    }
  }

  #core(): LoopCore {
    const o = this.#o;
    return {
      manager: this.#manager!,
      mode: o.autoSync,
      clock: this.#clock,
      wallClock: o.wallClock ?? ((): Date => new Date()),
      selfHealTimeoutMs: o.selfHealTimeoutMs ?? 0,
      selfHealBackoff:
        o.selfHealBackoff === null ? undefined : (o.selfHealBackoff ?? DEFAULT_SELF_HEAL_BACKOFF),
      emit: (e) => this.#emit(e),
      onWarning: o.onWarning,
      requestRefresh: (key, level, reason, afterMs) => this.requestRefresh(key, level, reason, afterMs),
      operationQueue: this.#operationQueue,
      current: (entry) => this.#entries.get(entry.key) === entry,
      indexResources: (entry, comparison) => this.#indexComparison(entry, comparison),
      operation: o.operation,
      pin: (app, request) => {
        const pinned = pinnedApp(app, request);
        if (pinned !== app) this.#origin.set(pinned, app);
        return pinned;
      },
    };
  }

  // ---- helpers ----

  #emit(event: LoopEvent): void {
    try {
      this.#o.onEvent?.(event);
    } catch (err) {
      this.#o.onWarning?.(`loop event listener failed on ${event.type}: ${oneLine(err)}`);
    }
  }

  #scheduleResync(entry: LoopEntry): void {
    this.#clearResync(entry);
    const every = this.#o.appResyncMs ?? 180_000;
    if (every <= 0 || this.#stopping) return;
    const jitter = Math.floor((this.#o.random ?? Math.random)() * (this.#o.appResyncJitterMs ?? 60_000));
    entry.resyncTimer = this.#clock.setTimeout(() => {
      entry.resyncTimer = undefined;
      this.requestRefresh(entry.key, 2, 'resync');
    }, every + jitter);
  }

  #clearResync(entry: LoopEntry): void {
    if (entry.resyncTimer !== undefined) this.#clock.clearTimeout(entry.resyncTimer);
    entry.resyncTimer = undefined;
  }

  /** The app's cluster, its live-cache events routed to the loop once it is ready. */
  async #clusterOf(app: Application): Promise<ClusterState> {
    const original = this.#origin.get(app) ?? app;
    const cluster = await this.#pool!.clusterOf(original);
    if (!this.#watched.has(cluster)) {
      this.#watched.add(cluster);
      const context = this.#dest.contextOf.get(original)!;
      void cluster.ready().then(
        (cache: LiveStateCache) => {
          if (!this.#stopping) this.#unsubscribe.push(cache.onEvent(this.#router!.handler(context)));
        },
        () => this.#watched.delete(cluster), // the app's refresh reports it; the next one tries again
      );
    }
    return cluster;
  }

  async #scopeProjects(): Promise<void> {
    const o = this.#o;
    const scoped = await scopeProjects(
      o.projects ?? new ProjectSet(),
      [...this.#entries.values()].map((e) => e.app.project),
      {
        clusterSecrets: o.clusterSecrets,
        projectRepositories: o.source.projectRepositories?.bind(o.source),
        onWarning: o.onWarning,
      },
    );
    this.#projects = scoped.projects;
    this.#projectClusters = o.projectClusters ?? scoped.projectClusters;
  }

  /** Resolves the app's destination and project (destinations.ts), as a one-shot run does. */
  #setUp(entry: LoopEntry, rescope: boolean): void {
    const o = this.#o;
    const app = entry.app;
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
        controllerNamespace: this.#ns,
        projectClusters: this.#projectClusters,
      });
    const d = resolveDestinations([report], {
      kubeConfig: this.#kubeConfig!,
      projects: this.#projects,
      projectCheck,
      refusedEarly: new Set(projectCheck(app).length > 0 ? [app] : []),
      clusterSecrets: o.clusterSecrets,
      projectClusters: this.#projectClusters,
      inClusterEnabled: o.settings?.inClusterEnabled !== false,
      judgeWindows: (r) => {
        const verdict = appWindowsVerdict(r.app, r.project, (o.wallClock ?? ((): Date => new Date()))());
        for (const m of verdict.warnings) {
          if (this.#warned.has(m)) continue;
          this.#warned.add(m);
          o.onWarning?.(m);
        }
        return verdict;
      },
    });
    for (const [a, c] of d.contextOf) this.#dest.contextOf.set(a, c);
    for (const [c, a] of d.accessOf) this.#dest.accessOf.set(c, a);
    for (const [c, s] of d.scopeOf) if (!this.#dest.scopeOf.has(c)) this.#dest.scopeOf.set(c, s);
    for (const [a, p] of d.projectOf) this.#dest.projectOf.set(a, p);
    entry.report = report;
    if (rescope && this.#pool) {
      void this.#pool.rescope().then((closed) => {
        for (const e of this.#entries.values())
          if (closed.includes(this.#dest.contextOf.get(e.app) ?? ''))
            this.requestRefresh(e.key, 1, 'app-changed');
      });
    }
  }

  #forgetSetup(app: Application): void {
    this.#dest.contextOf.delete(app);
    this.#dest.projectOf.delete(app);
  }

  #indexComparison(entry: LoopEntry, comparison: ComparisonResult): void {
    const context = this.#dest.contextOf.get(entry.app);
    this.#index(
      entry,
      context === undefined ? [] : comparison.resources.map((r) => resourceIndexKey(context, r)),
    );
  }

  #index(entry: LoopEntry, keys: string[]): void {
    for (const k of entry.resources) {
      const set = this.#byResource.get(k);
      set?.delete(entry.key);
      if (set?.size === 0) this.#byResource.delete(k);
    }
    entry.resources = keys;
    for (const k of keys) {
      let set = this.#byResource.get(k);
      if (!set) this.#byResource.set(k, (set = new Set()));
      set.add(entry.key);
    }
  }
}
