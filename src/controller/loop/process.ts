/**
 * The continuous loop's two processors (loop.ts runs them on its refresh and operation queues), as Argo CD's
 * `processAppRefreshQueueItem` and `processRequestedAppOperation` (controller/appcontroller.go):
 *
 * `refreshEntry`: compares the app (refresh/state.ts), records the comparison and what was rendered (each source's
 * revision and type, the summary), reports `refreshed`, then decides auto-sync (autosync.ts, behind the
 * sync-window gate) and drift: a `drift` event when the app is OutOfSync at the revision it was last synced
 * to (reported again only when the drifted set changes), with `healing`
 * when self-heal will sync it back; an `auto-sync-skipped` event when auto-sync declines (again only when
 * the reason changes); a self-heal waiting for its backoff asks for a level-2 refresh when it ends. A
 * refresh asked for while the app's operation runs waits for the operation's end (which refreshes anyway).
 *
 * `treeRefresh`: a level-0 refresh (Argo CD's `ComparisonWithNothing`, asked for by a change of an object
 * that hangs in the app's tree through ownerReferences: live.ts). As processAppRefreshQueueItem does,
 * it renders and compares nothing: the app's summary is worked out again from the live cache's tree
 * (refresh/tree.ts, through the last comparison's `summarize`) and `refreshed` is reported at level 0 with the
 * last comparison's verdict, so the controller writes what changed (the summary; `reconciledAt` stays).
 * When there is no comparison to start from (none yet, or the last refresh failed: Argo CD finds no
 * managed resources in its cache then and falls back to a full reconciliation), it answers false and the
 * caller refreshes the app in full.
 *
 * `operateEntry`: runs one attempt of the app's pending operation: sync windows first (a refused
 * operation waits, re-checked every `WINDOW_RECHECK_MS`, as Argo CD's operation stays Running while a
 * window blocks it), then the operation on the comparison it was decided on (first attempt) or a fresh one
 * (retries; pinned to the decided commit unless `retry.refresh`). A Failed or Error attempt with retries
 * left (`request.retry`: limit, duration·factor^n capped) comes back after its backoff; the last attempt
 * ends the operation: `app-operation-done`, the app's last operation and synced revision, and a refresh
 * (level 2 after an automated sync, 3 after a requested one, as Argo CD).
 */
import type { Application } from '../../apps/index.js';
import { oneLine } from '../../common/index.js';
import type { Clock } from '../../common/index.js';
import type { RateLimitingQueue } from '../../queue/index.js';
import { OPERATION_TERMINATED, UnsettledOperationError } from '../../sync/index.js';
import type { OperationReport, RunningProgress } from '../../sync/index.js';
import { automatedPolicy, decideAutoSync } from './autosync.js';
import type { SelfHealBackoff } from './autosync.js';
import type { AutoSyncMode, CompareLevel, LoopEvent, OperationRequest, RefreshReason } from './types.js';
import type { LoopEntry, RefreshRequest } from './state.js';
import { appWindowsVerdict, toReport } from '../refresh/index.js';
import type { ComparisonResult, Reconciliation, StateManager } from '../refresh/index.js';

/** How often an operation a sync window refuses is judged again. */
export const WINDOW_RECHECK_MS = 60_000;

/** What the processors need of the loop. */
export interface LoopCore {
  manager: StateManager;
  mode: AutoSyncMode;
  clock: Clock;
  wallClock: () => Date;
  selfHealTimeoutMs: number;
  selfHealBackoff: SelfHealBackoff | undefined;
  emit: (event: LoopEvent) => void;
  onWarning: ((message: string) => void) | undefined;
  requestRefresh: (key: string, level: CompareLevel, reason: RefreshReason, afterMs?: number) => void;
  operationQueue: RateLimitingQueue<string>;
  /** The loop is shutting down (no retry is scheduled any more). */
  stopping: () => boolean;
  /** The entry still is the loop's (not removed or replaced). */
  current: (entry: LoopEntry) => boolean;
  /** Records the index keys of a comparison's resources. */
  indexResources: (entry: LoopEntry, comparison: ComparisonResult) => void;
  operation: (
    app: Application,
    reconciliation: Reconciliation,
    request: OperationRequest,
    signal: AbortSignal,
    terminate: AbortSignal,
    onRunning?: (progress: RunningProgress) => void,
  ) => Promise<OperationReport>;
  /** The app pinned to the request's commit (state.ts `pinnedApp`), known to the loop's clusters. */
  pin: (app: Application, request: OperationRequest) => Application;
  /** Forgets the resolved commits of the app's repositories (the next render resolves them afresh). */
  freshRevisions: (app: Application) => void;
}

const iso = (d: Date): string => d.toISOString();

/** Thrown to skip an attempt (terminated while waiting for a retry): not an error of the operation. */
class SkipAttempt extends Error {}

/** The level-0 refresh (see the header): false when the app has no comparison to start from. */
export function treeRefresh(core: LoopCore, entry: LoopEntry, request: RefreshRequest): boolean {
  const { key, state } = entry;
  const comparison = state.comparison;
  if (!entry.summarize || !comparison || !state.rendered || state.error || entry.report?.error) return false;
  const started = core.clock.now();
  state.rendered = { sources: state.rendered.sources, summary: entry.summarize() };
  core.emit({
    type: 'refreshed',
    app: entry.app.name,
    key,
    reason: request.reason,
    level: 0,
    sync: comparison.sync,
    health: comparison.health.status,
    revision: comparison.revision,
    durationMs: core.clock.now() - started,
  });
  return true;
}

/** The refresh processor (see the header). Throws the comparison's failure (the caller records it). */
export async function refreshEntry(
  core: LoopCore,
  entry: LoopEntry,
  request: RefreshRequest,
  signal: AbortSignal,
): Promise<void> {
  const { key, state } = entry;
  const started = core.clock.now();
  const app = entry.app;
  const specVersion = entry.specVersion;
  const setupError = entry.report?.error;
  if (setupError) {
    state.error = {
      message: setupError.message,
      exitCode: setupError.exitCode,
      ...(setupError.conditions ? { conditions: setupError.conditions } : {}),
    };
    state.reconciledAt = iso(core.wallClock());
    core.emit({
      type: 'refreshed',
      app: app.name,
      key,
      reason: request.reason,
      level: request.level,
      durationMs: core.clock.now() - started,
      error: setupError.message,
    });
    return;
  }
  // processAppRefreshQueueItem compares with the last operation's local manifests while the last operation
  // is a local sync (`operationState.operation.sync.manifests`): nothing is fetched, the revision is the
  // source's targetRevision as written.
  const lastLocal = state.lastOperation?.request.localObjects;
  const written = (app.manifest['spec'] as { source?: { targetRevision?: unknown } } | undefined)?.source
    ?.targetRevision;
  const local = lastLocal
    ? { objects: lastLocal, revision: typeof written === 'string' ? written : '' }
    : undefined;
  const reconciliation = await core.manager.reconcile(app, signal, local ? { local } : {});
  try {
    record(core, entry, request, reconciliation, specVersion, started);
  } finally {
    // Its cluster's hold ends here, unless an operation was decided on it (released when that ends).
    if (entry.operation?.reconciliation !== reconciliation) reconciliation.release?.();
  }
}

/** A refresh's result recorded and reported, then auto-sync and drift decided (`refreshEntry`). */
function record(
  core: LoopCore,
  entry: LoopEntry,
  request: RefreshRequest,
  reconciliation: Reconciliation,
  specVersion: number,
  started: number,
): void {
  const { key, state, app } = entry;
  // Removed, or its spec replaced meanwhile: the new spec's refresh follows.
  if (!core.current(entry) || entry.specVersion !== specVersion) return;
  const comparison = toReport(reconciliation);
  state.comparison = comparison;
  state.rendered = { sources: reconciliation.sources, summary: reconciliation.summarize() };
  state.deleteHooks = reconciliation.deleteHooks;
  entry.summarize = reconciliation.summarize;
  delete state.error;
  // Argo CD sets reconciledAt on a first refresh and on those at level >= 2 (processAppRefreshQueueItem).
  if (!state.reconciledAt || request.level >= 2) state.reconciledAt = iso(core.wallClock());
  core.indexResources(entry, comparison);
  core.emit({
    type: 'refreshed',
    app: app.name,
    key,
    reason: request.reason,
    level: request.level,
    sync: comparison.sync,
    health: comparison.health.status,
    revision: comparison.revision,
    durationMs: core.clock.now() - started,
  });
  decide(core, entry, reconciliation, comparison);
}

function decide(
  core: LoopCore,
  entry: LoopEntry,
  reconciliation: Reconciliation,
  comparison: ComparisonResult,
): void {
  const { app, key, state } = entry;
  const inProgress = entry.operation !== undefined;
  const policy = automatedPolicy(app, core.mode);
  let syncWindowBlocked: string | undefined;
  if (policy && !inProgress && comparison.sync === 'OutOfSync') {
    const verdict = appWindowsVerdict(app, entry.report?.project, core.wallClock(), false);
    syncWindowBlocked = verdict.refusal?.message.replace(/^.*?failed to sync: /, '');
  }
  const decision = decideAutoSync({
    app,
    mode: core.mode,
    comparison,
    operationInProgress: inProgress,
    lastOperation: entry.lastSync,
    selfHealAttempts: state.selfHealAttempts,
    now: core.wallClock().getTime(),
    selfHealTimeoutMs: core.selfHealTimeoutMs,
    selfHealBackoff: core.selfHealBackoff,
    syncWindowBlocked,
  });

  // Drift: OutOfSync at the revision last synced (Synced again clears it).
  const drifted =
    !inProgress &&
    comparison.sync === 'OutOfSync' &&
    state.syncedRevision !== undefined &&
    state.syncedRevision === comparison.revision;
  if (drifted) {
    const resources = comparison.resources
      .filter((r) => r.status === 'OutOfSync')
      .map(
        (r) => `${r.group ? `${r.group}/` : ''}${r.kind}/${r.namespace ? `${r.namespace}/` : ''}${r.name}`,
      );
    const signature = resources.join('\n');
    const healing =
      decision.action === 'sync' || (decision.action === 'skip' && decision.retryAfterMs !== undefined);
    if (signature !== entry.lastDrift || decision.action === 'sync') {
      entry.lastDrift = signature;
      core.emit({ type: 'drift', app: app.name, key, resources, healing });
    }
  } else if (comparison.sync === 'Synced') entry.lastDrift = undefined;

  if (decision.action === 'none') {
    if (comparison.sync === 'Synced') entry.lastSkip = undefined;
    return;
  }
  if (decision.action === 'skip') {
    if (decision.reason !== entry.lastSkip) {
      entry.lastSkip = decision.reason;
      core.emit({ type: 'auto-sync-skipped', app: app.name, key, reason: decision.reason });
    }
    if (decision.retryAfterMs !== undefined) core.requestRefresh(key, 2, 'drift', decision.retryAfterMs);
    return;
  }
  entry.lastSkip = undefined;
  state.selfHealAttempts = decision.selfHealAttempts;
  entry.operation = { request: decision.request, reconciliation, attempt: 0 };
  core.operationQueue.add(key);
}

/** The operation processor (see the header): one attempt of the app's pending operation. */
export async function operateEntry(core: LoopCore, entry: LoopEntry, signal: AbortSignal): Promise<void> {
  const op = entry.operation;
  if (!op) return;
  const { key, state } = entry;
  const request = op.request;
  const app = entry.app;
  op.terminate ??= new AbortController();
  const terminating = op.terminate.signal.aborted;
  const verdict = appWindowsVerdict(
    app,
    entry.report?.project,
    core.wallClock(),
    !request.initiatedBy.automated,
  );
  // A terminate request is not blocked by a sync window (sync.go SyncAppState).
  if (verdict.refusal && !terminating) {
    if (!op.windowWarned) core.onWarning?.(`${oneLine(verdict.refusal)}; waiting for the window`);
    op.windowWarned = true;
    core.operationQueue.addAfter(key, WINDOW_RECHECK_MS);
    return;
  }
  const setupError = entry.report?.error;
  if (op.attempt === 0) {
    op.startedAt = core.clock.now();
    state.running = { request, startedAt: iso(core.wallClock()), ...(terminating ? { terminating } : {}) };
    core.emit({ type: 'app-operation-start', app: app.name, key, request });
  }
  const progress = (p: NonNullable<NonNullable<typeof state.running>['progress']>): void => {
    if (!state.running || !core.current(entry)) return;
    state.running.progress = p;
    core.emit({ type: 'app-operation-progress', app: app.name, key });
  };
  // Terminated while it waited for a retry: no attempt runs; it ends with the failed attempt's results and
  // Argo CD's words (processRequestedAppOperation resumes it as Terminating: "Operation terminated", the
  // retries counted so far).
  const waited = terminating && op.attempt > 0 ? op.lastReport : undefined;
  if (!waited && op.attempt > 0 && state.running)
    progress({ message: `Retrying operation. Attempt #${op.attempt}`, resources: [], revision: '' });
  entry.executing = true;
  let report: OperationReport | undefined;
  let message = '';
  let threw = false;
  // The comparison it was decided on (first attempt), or this attempt's own: its cluster held until the end.
  let reconciliation = op.reconciliation;
  op.reconciliation = undefined;
  try {
    if (waited) throw new SkipAttempt();
    if (setupError) throw new Error(setupError.message);
    // A retry with `refresh` takes the newest revisions (of the rollback's sources, if any).
    const { revision: _revision, revisions: _revisions, ...latest } = request;
    const target = core.pin(app, op.attempt > 0 && request.retry?.refresh ? latest : request);
    const local = request.localObjects
      ? { objects: request.localObjects, revision: request.revision ?? '' }
      : undefined;
    // SyncAppState compares with noRevisionCache: an operation resolves its branch afresh (a commit pushed
    // a moment ago is synced), unlike a resync. An automated sync brings the refresh's own comparison.
    if (!reconciliation && !local) core.freshRevisions(target);
    reconciliation ??= await core.manager.reconcile(target, signal, { local });
    report = await core.operation(target, reconciliation, request, signal, op.terminate.signal, (p) =>
      progress({ ...p, ...(op.attempt > 0 ? { retryCount: op.attempt } : {}) }),
    );
    message = report.message;
  } catch (err) {
    // It ran, but its writes cannot be read back: its report stands (as an Error). Anything else ended
    // without a result.
    threw = true;
    if (err instanceof UnsettledOperationError) report = err.operation;
    message = oneLine(err);
  } finally {
    entry.executing = false;
    reconciliation?.release?.();
  }
  if (waited) {
    threw = false;
    message = OPERATION_TERMINATED;
    report = { ...waited, phase: 'Failed', message, finishedAt: iso(core.wallClock()) };
  } else op.attempt++;
  const phase: OperationReport['phase'] = report && !threw ? report.phase : 'Error';
  if (report) report.retries = waited ? op.attempt : op.attempt - 1;
  if (report && !waited) op.lastReport = report;

  // Retries (Argo CD: the operation stays Running, the next attempt after the backoff).
  const retry = request.retry;
  const limit = retry?.limit ?? 0;
  if (
    (phase === 'Failed' || phase === 'Error') &&
    retry &&
    !signal.aborted &&
    !op.terminate.signal.aborted &&
    !core.stopping() &&
    core.current(entry) &&
    (limit < 0 || op.attempt <= limit)
  ) {
    const { durationMs, factor, maxDurationMs } = retry.backoff;
    const delay = Math.min(durationMs * factor ** (op.attempt - 1), maxDurationMs);
    core.operationQueue.addAfter(key, delay);
    // Argo CD keeps it Running with the failed attempt's results and when the next one starts.
    const at = new Date(core.wallClock().getTime() + delay).toISOString().replace(/\.\d+Z$/, 'Z');
    const failed = report?.message ?? message;
    progress({
      message: `${failed}. Retrying attempt #${op.attempt} at ${at}.`,
      resources: report?.resources ?? [],
      revision: report?.revision ?? '',
      retryCount: op.attempt,
      finishedAt: report?.finishedAt ?? iso(core.wallClock()),
    });
    return;
  }

  const finishedAt = report?.finishedAt || iso(core.wallClock());
  // Argo CD's final message of a retried operation: "<message> (retried N times)."
  const retried = waited ? op.attempt : op.attempt - 1;
  if (retried > 0) message = `${threw ? message : (report?.message ?? '')} (retried ${retried} times).`;
  else if (!threw) message = report?.message ?? '';
  const done = report;
  // The status shows the final message, the retries counted in (processRequestedAppOperation).
  if (done && retried > 0 && !threw) done.message = message;
  delete state.running;
  entry.operation = entry.next;
  entry.next = undefined;
  if (done) state.lastOperation = { request, report: done };
  entry.lastSync = {
    request,
    report: done,
    phase,
    finishedAt,
    message,
    sources: JSON.stringify(app.sources),
  };
  if (done && phase === 'Succeeded' && !done.dryRun) state.syncedRevision = done.revision;
  core.emit({
    type: 'app-operation-done',
    app: app.name,
    key,
    request,
    phase,
    message,
    revision: done?.revision ?? request.revision ?? '',
    durationMs: core.clock.now() - (op.startedAt ?? core.clock.now()),
  });
  if (!core.current(entry) || core.stopping()) return;
  const deferred = entry.deferred;
  entry.deferred = undefined;
  const level: CompareLevel = request.initiatedBy.automated ? 2 : 3;
  core.requestRefresh(key, deferred && deferred.level > level ? deferred.level : level, 'operation-done');
  if (entry.operation) core.operationQueue.add(key);
}
