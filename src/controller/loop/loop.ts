// Over 400 lines: one class, Loop (queues, triggers and shutdown share its state); its workers, processors, state and clusters are already beside it.
/**
 * `Loop`: the continuous reconcile loop (issue 22; Argo CD's application controller, running until told to
 * stop): the engine of `sync --watch` and `kubectl gitops controller`, behind `ReconcileLoop`
 * (types.ts). docs/loop.md states its rules with their Argo CD sources.
 *
 * - Apps come and go (`upsertApp`, `removeApp`); each is keyed `<namespace>/<name>`. A changed spec asks
 *   for a level-2 refresh (3 when its sources changed); an unchanged one (a status write seen back) none.
 *   An app read from a cluster brings its last operation (`status.operationState`, state.ts).
 * - Two queues (src/queue, client-go semantics: an app is never processed twice at once, adds during
 *   processing coalesce; refresh requests keep the highest level): refresh (`statusProcessors` workers,
 *   default 4) and operation (`operationProcessors`, default 2); workers in workers.ts, processors in
 *   process.ts (auto-sync: autosync.ts), options in options.ts.
 * - Triggers: the resync timer per app (`appResyncMs` + up to `appResyncJitterMs`, after every refresh:
 *   Argo CD's `timeout.reconciliation` and its jitter; 0 turns it off), live-cache events on the app's
 *   objects (live.ts, batched: level 1 for its managed objects, level 0 for their descendants by
 *   ownerReferences: the resource tree and summary only, process.ts `treeRefresh`), and
 *   `requestRefresh` (Git poller, file watcher, Application watch). A request at level >= 2 makes the source service forget what it resolved of the app's
 *   repositories (`SourceService.forgetRevisions`), so the refresh sees the branch's new commit.
 * - Clusters: one `ClusterPool` (refresh/destinations.ts) for the loop's life: one connection and live cache per
 *   cluster, kept across refreshes; a cluster whose cache does not cover a new app's destination
 *   namespace is connected (listed) again (`ClusterPool.rescope`).
 * - Sharding (`ownsApp`, `setOwnership`): apps this loop does not own are kept but neither refreshed nor
 *   operated; a new ownership asks a refresh of every app.
 * - Shutdown (`shutdown(timeoutMs)`, or `signal`: `shutdownTimeoutMs`, default 0): no operation starts any
 *   more, refreshes and timers stop at once, running operations get `timeoutMs` to end before their signal
 *   aborts; then live caches and connections close and `run()` resolves. Idempotent.
 * Nothing waits for an event that may not come: queues wake on adds or shutdown, timers are the clock's.
 */
import type { Application } from '../../apps/index.js';
import { instanceName } from '../../apps/index.js';
import type { ProjectSet } from '../../apps/index.js';
import { loadKubeConfig } from '../../cluster/index.js';
import {
  DEFAULT_ARGOCD_NAMESPACE,
  DEFAULT_OPERATION_PROCESSORS,
  DEFAULT_STATUS_PROCESSORS,
  oneLine,
  realClock,
} from '../../common/index.js';
import type { Clock } from '../../common/index.js';
import { RateLimitingQueue } from '../../queue/index.js';
import type { QueueMetrics } from '../../queue/index.js';
import { repoKey } from '../../source/index.js';
import { OPERATION_TERMINATED } from '../../sync/index.js';
import { DEFAULT_SELF_HEAL_BACKOFF } from './autosync.js';
import { clusterInfoOf, sharedClusterOptions, StateManager } from '../refresh/index.js';
import { LoopClusters } from './clusters.js';
import { AppIndex, isApplicationItself, LiveRouter, resourceIndexKey } from './live.js';
import type { LoopCore } from './process.js';
import { operationWorker, refreshWorker } from './workers.js';
import type { WorkerContext } from './workers.js';
import {
  clearTimers,
  dropDecided,
  maxRefresh,
  newEntry,
  RevisionFreshness,
  scheduleResync,
} from './state.js';
import type { LoopEntry } from './state.js';
import type {
  AppLoopState,
  CompareLevel,
  LoopEvent,
  OperationRequest,
  ReconcileLoop,
  RefreshReason,
} from './types.js';
import {
  DEFAULT_APP_RESYNC_JITTER_MS,
  DEFAULT_APP_RESYNC_MS,
  DEFAULT_EVENT_BATCH_MS,
  TERMINATE_GRACE_MS,
} from './options.js';
import type { LoopOptions } from './options.js';

// Kept where the first version had it (branches importing it from here).
export type { LoopOptions } from './options.js';

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
  /** Set once `run()` has loaded the kubeconfig and projects. */
  #clusters: LoopClusters | undefined;
  #manager: StateManager | undefined;
  #router: LiveRouter | undefined;
  readonly #index = new AppIndex();
  /** `<cluster>|<namespace>` → apps whose project watches orphaned resources there; rebuilt after changes. */
  #orphans: Map<string, string[]> | undefined;
  readonly #revisions: RevisionFreshness;

  constructor(options: LoopOptions) {
    this.#o = options;
    this.#ns = options.argocdNamespace ?? DEFAULT_ARGOCD_NAMESPACE;
    this.#clock = options.clock ?? realClock;
    this.#owns = options.ownsApp ?? ((): boolean => true);
    this.#revisions = new RevisionFreshness(this.#clock, options.revisionCacheMs ?? 0, (url) =>
      options.source.forgetRevisions?.(url),
    );
    this.#refreshQueue = new RateLimitingQueue<string>({ name: 'refresh', clock: this.#clock });
    this.#operationQueue = new RateLimitingQueue<string>({ name: 'operation', clock: this.#clock });
    for (const app of options.apps ?? []) this.upsertApp(app);
  }

  // ---- the door (ReconcileLoop) ----

  upsertApp(app: Application): void {
    this.#orphans = undefined;
    const key = keyOf(app, this.#ns);
    const entry = this.#entries.get(key);
    if (!entry) {
      const added = newEntry(key, app);
      this.#entries.set(key, added);
      this.#index.setInstance(instanceName(app, this.#ns), key);
      this.#emit({ type: 'app-added', app: app.name, key });
      if (this.#clusters) added.report = this.#clusters.setUp(app, true);
      this.requestRefresh(key, 2, 'initial');
      return;
    }
    const old = entry.app;
    const changed = specOf(old) !== specOf(app);
    this.#clusters?.forget(old);
    entry.app = app;
    entry.state.app = app;
    if (this.#clusters) entry.report = this.#clusters.setUp(app, changed);
    if (changed) {
      entry.specVersion++;
      const sourcesChanged = JSON.stringify(old.sources) !== JSON.stringify(app.sources);
      this.requestRefresh(key, sourcesChanged ? 3 : 2, 'app-changed');
    }
  }

  removeApp(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#orphans = undefined;
    clearTimers(entry, this.#clock);
    if (!entry.executing) dropDecided(entry.operation);
    this.#index.remove(key, instanceName(entry.app, this.#ns));
    this.#clusters?.forget(entry.app);
    this.#emit({ type: 'app-removed', app: entry.app.name, key });
  }

  requestRefresh(key: string, level: CompareLevel, reason: RefreshReason, afterMs?: number): void {
    const entry = this.#entries.get(key);
    if (!entry || this.#stopping) return;
    if (afterMs && afterMs > 0) {
      // Delayed: recorded when its time comes (a level-2 one then forgets revisions). One delayed
      // request per app: an earlier one wins (a self-heal backoff asked again by every refresh).
      const at = this.#clock.now() + afterMs;
      if (entry.delayed && entry.delayed.at <= at) return;
      if (entry.delayed) this.#clock.clearTimeout(entry.delayed.timer);
      const timer = this.#clock.setTimeout(() => {
        if (entry.delayed?.timer === timer) entry.delayed = undefined;
        this.requestRefresh(key, level, reason);
      }, afterMs);
      entry.delayed = { at, timer };
      return;
    }
    this.#revisions.requested(entry.app, level);
    entry.pending = maxRefresh(entry.pending, { level, reason });
    this.#refreshQueue.add(key);
  }

  requestOperation(key: string, request: OperationRequest): void {
    const entry = this.#entries.get(key);
    if (!entry || this.#stopping) return;
    const same = (a: OperationRequest | undefined): boolean => JSON.stringify(a) === JSON.stringify(request);
    if (same(entry.operation?.request) || same(entry.next?.request)) return; // already asked
    const op = { request, attempt: 0 };
    // One operation at a time (Argo CD's app.operation): a request waiting is replaced, a running one ends first.
    if (entry.operation && (entry.executing || entry.state.running)) entry.next = op;
    else {
      dropDecided(entry.operation);
      entry.operation = op;
      this.#operationQueue.add(key);
    }
  }

  terminateOperation(key: string): boolean {
    const entry = this.#entries.get(key);
    const op = entry?.operation;
    if (!entry || !op) return false;
    op.terminate ??= new AbortController();
    if (op.terminate.signal.aborted) return true;
    op.terminate.abort(new Error(OPERATION_TERMINATED));
    if (entry.state.running) entry.state.running = { ...entry.state.running, terminating: true };
    // A running attempt sees it at its next step; a waiting one (a backoff, a sync window) runs now.
    if (!entry.executing) this.#operationQueue.add(key);
    return true;
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

  /** The refresh and operation queues' counters (depth, adds, retries, processing times), for metrics. */
  queueMetrics(): QueueMetrics[] {
    return [this.#refreshQueue.metrics(), this.#operationQueue.metrics()];
  }

  /** A new sharding filter: every app is refreshed (newly owned ones start, others stop at their next turn). */
  setOwnership(ownsApp: (app: Application) => boolean): void {
    this.#owns = ownsApp;
    this.#orphans = undefined;
    this.#clusters?.rescope();
    for (const key of this.#entries.keys()) this.requestRefresh(key, 2, 'requested');
  }

  /** New AppProjects (a project changed): every app is held to them again and refreshed. */
  async setProjects(projects: ProjectSet): Promise<void> {
    this.#o = { ...this.#o, projects } as LoopOptions;
    const clusters = this.#clusters;
    if (!clusters) return;
    await clusters.scopeProjects(projects);
    this.#orphans = undefined;
    for (const entry of this.#entries.values()) {
      clusters.forget(entry.app);
      entry.report = clusters.setUp(entry.app, false);
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
      const router = new LiveRouter({
        tracking: shared.tracking,
        clock: this.#clock,
        batchMs: o.eventBatchMs ?? DEFAULT_EVENT_BATCH_MS,
        keyOfInstance: (instance) => this.#index.keyOfInstance(instance),
        keysOfResource: (k) => this.#index.keysOfResource(k),
        orphanWatchers: (cluster, namespace) => this.#orphanWatchers().get(`${cluster}|${namespace}`) ?? [],
        isSelf: (appKey, k) => isApplicationItself(this.#entries.get(appKey)?.app, this.#ns, k),
        flush: (keys) => {
          for (const [key, level] of keys) this.requestRefresh(key, level, 'drift');
        },
      });
      const clusters = new LoopClusters({
        run: o,
        argocdNamespace: this.#ns,
        kubeConfig,
        apps: () => [...this.#entries.values()].filter((e) => this.#owns(e.app)).map((e) => e.app),
        shared,
        router,
        stopping: () => this.#stopping,
        onRescoped: (closed) => {
          for (const e of this.#entries.values())
            if (closed.includes(clusters.contextOf(e.app) ?? ''))
              this.requestRefresh(e.key, 1, 'app-changed');
        },
      });
      await clusters.scopeProjects(o.projects);
      if (this.#stopping) return await this.#shutdown;
      // Plugin renders read their app's cluster (KUBE_VERSION, KUBE_API_VERSIONS).
      o.source.useClusterInfo?.(async (app) => {
        const lease = clusters.lease(app);
        try {
          return await clusterInfoOf(await lease.cluster);
        } finally {
          lease.release();
        }
      });
      this.#manager = new StateManager({
        reuseComparisons: true,
        diffText: false,
        ...o,
        onEvent: (e) => this.#emit(e),
        // Each reconciliation holds its cluster until released (process.ts).
        clusterOf: (app) => clusters.lease(app),
        projectOf: (app) => clusters.projectOf(app),
      });
      this.#router = router;
      this.#clusters = clusters;
      for (const entry of this.#entries.values()) entry.report = clusters.setUp(entry.app, false);
      this.#orphans = undefined;
      const core = this.#core();
      const statusWorkers = Math.max(1, o.statusProcessors ?? DEFAULT_STATUS_PROCESSORS);
      const operationWorkers = Math.max(1, o.operationProcessors ?? DEFAULT_OPERATION_PROCESSORS);
      const workers: WorkerContext = {
        core,
        entry: (key) => this.#entries.get(key),
        owns: (app) => this.#owns(app),
        refreshSignal: this.#refreshAbort.signal,
        operationSignal: this.#operationAbort.signal,
        scheduleResync: (entry, level) => this.#scheduleResync(entry, level),
      };
      this.#workers = Promise.all([
        ...Array.from({ length: statusWorkers }, () => refreshWorker(workers, this.#refreshQueue)),
        ...Array.from({ length: operationWorkers }, () => operationWorker(workers, this.#operationQueue)),
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
    for (const entry of this.#entries.values()) clearTimers(entry, this.#clock);
    this.#router?.stop();
    this.#refreshQueue.shutDown();
    this.#refreshAbort.abort(new Error('the loop is stopping'));
    // Operations waiting (or between retries) never start; running ones get `timeoutMs`.
    const limit = new AbortController();
    const timer = this.#clock.setTimeout(() => limit.abort(), Math.max(0, timeoutMs));
    try {
      await this.#operationQueue.shutDownWithDrain(limit.signal);
    } catch {
      if (this.#o.terminateOnShutdown) await this.#terminateRunning();
      this.#operationAbort.abort(new Error('the loop stopped: shutdown timeout'));
    } finally {
      this.#clock.clearTimeout(timer);
    }
    await this.#workers;
    await this.#clusters?.close();
  }

  /** Terminates the operations still running and gives them `TERMINATE_GRACE_MS` to end (shutdown). */
  async #terminateRunning(): Promise<void> {
    const running = [...this.#entries.values()].filter((e) => e.executing);
    for (const e of running) this.terminateOperation(e.key);
    const grace = new AbortController();
    const timer = this.#clock.setTimeout(() => grace.abort(), TERMINATE_GRACE_MS);
    try {
      await this.#operationQueue.shutDownWithDrain(grace.signal);
    } catch {
      // still running after the grace: aborted by the caller
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }

  // ---- workers ----

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
      stopping: () => this.#stopping,
      current: (entry) => this.#entries.get(entry.key) === entry,
      indexResources: (entry, comparison) => {
        this.#clusters?.observe(
          entry.app,
          comparison.resources.map((r) => r.namespace),
        );
        const context = this.#clusters?.contextOf(entry.app);
        this.#index.setResources(
          entry.key,
          context === undefined ? [] : comparison.resources.map((r) => resourceIndexKey(context, r)),
        );
      },
      operation: o.operation,
      pin: (app, request) => this.#clusters!.pin(app, request),
      freshRevisions: (app) => this.#revisions.requested(app, 3),
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

  #orphanWatchers(): Map<string, string[]> {
    this.#orphans ??= this.#clusters?.orphanWatchers(
      [...this.#entries.values()].filter((e) => this.#owns(e.app)),
    );
    return this.#orphans ?? new Map();
  }

  /** Argo CD's comparison expiry counts from the last refresh at level >= 2 (its `reconciledAt`). */
  #scheduleResync(entry: LoopEntry, level: number): void {
    if (this.#stopping) return;
    scheduleResync(entry, level, {
      clock: this.#clock,
      everyMs: this.#o.appResyncMs ?? DEFAULT_APP_RESYNC_MS,
      jitterMs: this.#o.appResyncJitterMs ?? DEFAULT_APP_RESYNC_JITTER_MS,
      random: this.#o.random ?? Math.random,
      request: () => this.requestRefresh(entry.key, 2, 'resync'),
    });
  }
}
