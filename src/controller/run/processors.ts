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
 * - `refreshApp`: without an operation, compare, done. With one, the first refresh keeps the unmasked
 *   reconciliation and hands the app to the operation queue; the refresh after the operation reports the
 *   final state (after `waitForHealth` when asked, health-wait.ts) and, when a Failed operation has retries
 *   left, comes back after the backoff (duration * factor^n, capped) for a fresh comparison and operation.
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
import { waitForHealth } from './health-wait.js';
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
  stage: 'refresh' | 'operate' | 'final' | 'done';
  /** Operations run so far. */
  attempt: number;
  reconciliation?: Reconciliation;
  before?: ComparisonResult | undefined;
}

/** What a processor decided (controller-runtime's Result): finished, or the queue the app goes to next. */
export interface ProcessResult {
  next?: 'refresh' | 'operation';
  /** With `next: 'refresh'`: come back after this long (a sync retry's backoff). */
  afterMs?: number;
}

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
  for (const key of works.keys()) refreshQueue.add(key);
  shutDownWhenFinished();
  const size = Math.max(1, works.size);
  await Promise.all([
    ...Array.from({ length: Math.min(o.statusWorkers, size) }, () => worker(refreshQueue, o.refresh)),
    ...Array.from({ length: Math.min(o.operationWorkers, size) }, () => worker(operationQueue, o.operate)),
  ]);
  refreshQueue.shutDown();
  operationQueue.shutDown();
}

export interface RefreshOptions {
  operation?: ((...args: never[]) => unknown) | undefined;
  waitForHealth?: boolean | undefined;
  retry?: RetryStrategy | undefined;
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
  if (o.waitForHealth && !operation.dryRun && operation.phase === 'Succeeded') {
    w.report.comparison = await waitForHealth(app, manager, w.reconciliation!, w.report.comparison!, signal);
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
