/**
 * The run's two queues and their processors (Argo CD's application controller: refresh and operation).
 *
 * - `processApps`: every app key of `works` goes into the refresh queue (src/queue); `statusWorkers` run
 *   `refresh`, `operationWorkers` run `operate` (none without an operation). Processors return what comes
 *   next (`ProcessResult`, as controller-runtime reconcilers do): finished, the operation queue, or the
 *   refresh queue (after a backoff). Resolves when every app is finished (the completion predicate: both
 *   queues are shut down then), or when `signal` aborts (workers stop taking keys).
 * - A transient failure (5xx, 429, transport: src/cluster `isRetryable`) is retried through the same queue
 *   with per-app rate limiting, at most `MAX_TRANSIENT_RETRIES` times, with a warning; any other failure
 *   (or any after an abort: "interrupted", exit 130) is recorded on that app alone, never hiding others.
 * - `refreshApp`: without an operation, compare, done (a refresh that could not load or compare the desired
 *   state, `Reconciliation.failure`, is still the app's error: a one-shot run exits 2 for it, and its
 *   operation is refused by src/sync as Argo CD refuses it). With one, the first refresh keeps the unmasked
 *   reconciliation and hands the app to the operation queue; the refresh after the operation reports the
 *   final state and, when a Failed operation has retries left, comes back after the backoff (duration *
 *   factor^n, capped) for a fresh comparison and operation. With `waitForHealth` (sync --health) an app
 *   still Progressing after a Succeeded operation is not waited for inside a worker: it goes back to the
 *   refresh queue, woken by its cluster's next live-cache event or after `HEALTH_RECHECK_MS`
 *   (health-wait.ts), so one app that never becomes Healthy holds no worker and delays no other app's
 *   final refresh (issue 34).
 * - No state is reported that was not observed: an app's final comparison is always a refresh done after
 *   its operation ended. When the run is stopped (Ctrl-C, --timeout) before that refresh, the app is left
 *   unfinished (`pendingFinal`) and the run refreshes it once more after the queues stop (run.ts
 *   `finalRefresh`), never reporting the comparison from before the operation.
 * - `operateApp`: the app's sync windows are judged first (Argo CD's syncWindowPreventsSync): a refused
 *   sync never starts unless windows are only reported; the operation's report (with `retries`) is kept on
 *   the app, also when its writes cannot be read back (UnsettledOperationError), before the error.
 * - Each finished app emits `app-done` once.
 */
import type { Application, RetryStrategy } from '../../apps/index.js';
import { ExitCode, oneLine } from '../../common/index.js';
import { isRetryable } from '../../cluster/index.js';
import { RateLimitingQueue } from '../../queue/index.js';
import { UnsettledOperationError } from '../../sync/index.js';
import type { OperationReport } from '../../sync/index.js';
import type { RenderedApp } from '../../source/index.js';
import { healthWait } from './health-wait.js';
import { appError, MAX_TRANSIENT_RETRIES, toReport } from '../refresh/index.js';
import type {
  AppReport,
  AppWindowsVerdict,
  ComparisonResult,
  Reconciliation,
  RunEvent,
  RunEventHandler,
  StateManager,
} from '../refresh/index.js';

/** One app's way through the run: refresh -> (operate -> final refresh, maybe again) -> done. */
export interface AppWork {
  report: AppReport;
  /**
   * `final`: the operation ended, the refresh after it is due; `health`: that refresh was done and the app
   * waits (in the refresh queue, holding no worker) to be Healthy (sync --health).
   */
  stage: 'refresh' | 'operate' | 'final' | 'health' | 'done';
  /** Operations run so far. */
  attempt: number;
  reconciliation?: Reconciliation;
  before?: ComparisonResult | undefined;
  /** The render the operation synced: the run's last refresh after a stop compares against it (run.ts). */
  rendered?: RenderedApp | undefined;
}

/** What a processor decided (controller-runtime's Result): finished, or the queue the app goes to next. */
export interface ProcessResult {
  next?: 'refresh' | 'operation';
  /** With `next: 'refresh'`: come back after this long (a sync retry's backoff, a health recheck). */
  afterMs?: number;
  /**
   * With `next: 'refresh'`: also come back as soon as this fires (`wake` is called; returns the
   * unsubscribe, called when the app is next processed or the run ends): a live-cache event.
   */
  wakeOn?: (wake: () => void) => () => void;
}

/** Whether the app's operation ended and no refresh after it has been reported yet (see the header). */
export const pendingFinal = (w: AppWork): boolean => w.stage === 'final' || w.stage === 'health';

export function appDoneEvent(r: AppReport): RunEvent {
  if (r.error) return { type: 'app-done', app: r.app.name, error: r.error.message };
  const c = r.comparison;
  return { type: 'app-done', app: r.app.name, ...(c ? { sync: c.sync, health: c.health.status } : {}) };
}

export interface ProcessOptions {
  /** Every unfinished app by key (`<namespace>/<name>`). */
  works: Map<string, AppWork>;
  refresh: (w: AppWork) => Promise<ProcessResult>;
  operate: (w: AppWork) => Promise<ProcessResult>;
  statusWorkers: number;
  /** 0 without an operation. */
  operationWorkers: number;
  /** The caller's signal (workers stop taking keys when it aborts). */
  signal: AbortSignal | undefined;
  /** `signal`, or one that never aborts. */
  runSignal: AbortSignal;
  emit?: RunEventHandler | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

/** Runs the refresh and operation queues until every app of `works` is finished or the signal aborts. */
export async function processApps(o: ProcessOptions): Promise<void> {
  const { works, signal, runSignal, emit } = o;
  const refreshQueue = new RateLimitingQueue<string>({ name: 'refresh' });
  const operationQueue = new RateLimitingQueue<string>({ name: 'operation' });
  const finished = (): boolean => [...works.values()].every((w) => w.stage === 'done');
  const shutDownWhenFinished = (): void => {
    if (!finished()) return;
    refreshQueue.shutDown();
    operationQueue.shutDown();
  };
  const finish = (w: AppWork): void => {
    w.stage = 'done';
    emit?.(appDoneEvent(w.report));
  };
  /** Wake-ups (live-cache subscriptions) of apps waiting in the refresh queue, by key. */
  const wakers = new Map<string, () => void>();
  const unwake = (key: string): void => {
    wakers.get(key)?.();
    wakers.delete(key);
  };
  const fail = (w: AppWork, err: unknown): void => {
    // Stopped after its operation ended: the run's final refresh reports it (run.ts), not an error.
    if (runSignal.aborted && pendingFinal(w)) return;
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
      unwake(key);
      // Stopped: nothing more is started (the queue hands out keys still waiting even then).
      if (runSignal.aborted) {
        queue.done(key);
        return;
      }
      try {
        const result = await process(w);
        queue.forget(key);
        if (result.next === 'operation') operationQueue.add(key);
        else if (result.next === 'refresh') {
          if (result.afterMs) refreshQueue.addAfter(key, result.afterMs);
          else refreshQueue.add(key);
          if (result.wakeOn)
            wakers.set(
              key,
              result.wakeOn(() => refreshQueue.add(key)),
            );
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
  for (const key of works.keys()) refreshQueue.add(key);
  shutDownWhenFinished();
  const size = Math.max(1, works.size);
  await Promise.all([
    ...Array.from({ length: Math.min(o.statusWorkers, size) }, () => worker(refreshQueue, o.refresh)),
    ...Array.from({ length: Math.min(o.operationWorkers, size) }, () => worker(operationQueue, o.operate)),
  ]);
  for (const key of [...wakers.keys()]) unwake(key);
  refreshQueue.shutDown();
  operationQueue.shutDown();
}

export interface RefreshOptions {
  operation?: ((...args: never[]) => unknown) | undefined;
  waitForHealth?: boolean | undefined;
  retry?: RetryStrategy | undefined;
  emit?: RunEventHandler | undefined;
}

/** The refresh processor (see the header). */
export async function refreshApp(
  w: AppWork,
  manager: StateManager,
  signal: AbortSignal,
  o: RefreshOptions,
): Promise<ProcessResult> {
  const app = w.report.app;
  if (w.stage === 'refresh') {
    if (!o.operation) {
      const reconciliation = await manager.reconcile(app, signal);
      w.report.comparison = toReport(reconciliation);
      // Compared with what could be loaded, as Argo CD; still the app's error for a one-shot run's exit.
      if (reconciliation.failure) w.report.error = appError(app, reconciliation.failure.error);
      return {};
    }
    w.reconciliation = await manager.reconcile(app, signal, { onRendered: (r) => (w.rendered = r) });
    w.before = toReport(w.reconciliation);
    // The operation is refused (src/sync runOperation, phase Error, as Argo CD's); the app's error decides
    // the exit code as before (2: could not be rendered or compared).
    if (w.reconciliation.failure) w.report.error = appError(app, w.reconciliation.failure.error);
    w.stage = 'operate';
    return { next: 'operation' };
  }
  const operation = w.report.operation!;
  // A dry run changed nothing: the comparison before it is the state after it.
  w.report.comparison = operation.dryRun
    ? w.before
    : await manager.compare(app, signal, { onRendered: (r) => (w.rendered = r) });
  if (o.waitForHealth && !operation.dryRun && operation.phase === 'Succeeded') {
    const wait = healthWait(app, w.reconciliation!, w.report.comparison!, o.emit);
    if (wait) {
      w.stage = 'health';
      return { next: 'refresh', afterMs: wait.recheckMs, wakeOn: wait.wakeOn };
    }
  }
  const retry = o.retry ?? app.syncPolicy.retry;
  const limit = retry?.limit ?? 0;
  const attempt = w.attempt - 1;
  if (retry && operation.phase === 'Failed' && !signal.aborted && (limit < 0 || attempt < limit)) {
    const { durationMs, factor, maxDurationMs } = retry.backoff;
    w.stage = 'refresh';
    return { next: 'refresh', afterMs: Math.min(durationMs * factor ** attempt, maxDurationMs) };
  }
  return {};
}

/** The operation processor (see the header). */
export async function operateApp(
  w: AppWork,
  signal: AbortSignal,
  o: {
    judgeWindows: (r: AppReport) => AppWindowsVerdict;
    syncWindows: 'enforce' | 'report';
    operation: (
      app: Application,
      reconciliation: Reconciliation,
      signal: AbortSignal,
    ) => Promise<OperationReport>;
  },
): Promise<ProcessResult> {
  // Argo CD's syncWindowPreventsSync, before any task: a refused sync never starts.
  const windows = o.judgeWindows(w.report);
  if (windows.refusal && o.syncWindows === 'enforce') throw windows.refusal;
  const operation = await o.operation(w.report.app, w.reconciliation!, signal).catch((err: unknown) => {
    // It ran, but its writes cannot be read back: report how it went, then the app's error.
    if (err instanceof UnsettledOperationError) {
      w.report.operation = { ...err.operation, retries: w.attempt };
      w.attempt++;
    }
    throw err;
  });
  operation.retries = w.attempt;
  w.report.operation = operation;
  w.attempt++;
  w.stage = 'final';
  return { next: 'refresh' };
}
