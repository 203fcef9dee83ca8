/**
 * What the continuous loop keeps per app (`LoopEntry`), and the small pure helpers around it:
 * - `lastOperationOf(manifest)`: the last operation an Application's `status.operationState` records (an
 *   Application read from a cluster, after a restart), so auto-sync never retries a revision whose sync
 *   failed before the restart (Argo CD reads the same field: `alreadyAttemptedSync`);
 * - `pinnedApp(app, request)`: the app with its sources pinned to the request's commit(s) (a rollback's
 *   sources in place of the spec's), so an operation (and each of its retries, unless `retry.refresh`)
 *   syncs the revision it was decided for;
 * - `syncRequestOf(request)`: the src/sync request an `OperationRequest` means (strategy default hook, as
 *   Argo CD's; the request's sync options laid over the app's by `runOperation`);
 * - `scheduleResync` / `clearTimers`: the app's resync timer (a level-1 refresh keeps a pending one) and
 *   its delayed refresh request;
 * - `RevisionFreshness`: which refresh requests make the source service re-resolve the app's repositories;
 * - `maxRefresh`: coalescing of refresh requests (the highest level wins; its reason goes with it).
 */
import type { AppSummary, Application } from '../../apps/index.js';
import { repoKey } from '../../source/index.js';
import type { KubeObject } from '../../cluster/index.js';
import type { Clock, TimerHandle } from '../../common/index.js';
import type { OperationReport, SyncRequest } from '../../sync/index.js';
import type { LastOperation } from './autosync.js';
import type { AppLoopState, CompareLevel, OperationRequest, RefreshReason } from './types.js';
import type { AppReport, Reconciliation } from '../refresh/index.js';

export interface RefreshRequest {
  level: CompareLevel;
  reason: RefreshReason;
}

/** An operation requested for an app, from its decision until its last attempt ended. */
export interface PendingOperation {
  request: OperationRequest;
  /** The comparison it was decided on (first attempt only; retries compare afresh). */
  reconciliation?: Reconciliation | undefined;
  /** Attempts made so far. */
  attempt: number;
  /** Clock reading when the first attempt started. */
  startedAt?: number;
  /** The sync windows refused it (warned once). */
  windowWarned?: boolean;
  /**
   * Aborted when the operation is to be terminated (Argo CD's `Terminating` phase, `terminateOperation`):
   * the running attempt terminates at its next step, a waiting one runs at once and terminates, and no
   * retry follows.
   */
  terminate?: AbortController | undefined;
  /** The last attempt's report (a terminate during the retry backoff ends with its results). */
  lastReport?: OperationReport | undefined;
}

export interface LoopEntry {
  key: string;
  app: Application;
  /**
   * Bumped when `upsertApp` changes the app's spec: a refresh or operation begun on an older spec is stale
   * (its result is dropped; the new spec's refresh follows). A metadata-only change (labels, annotations,
   * status) keeps it: the comparison of the same spec stands.
   */
  specVersion: number;
  state: AppLoopState;
  /** Destination and project as resolved (refresh/destinations.ts); `error` stops the app before any compare. */
  report?: AppReport;
  /**
   * The app's summary from the live cache's tree now (the last successful comparison's `summarize`,
   * refresh/tree.ts): what a level-0 refresh calls.
   */
  summarize?: (() => AppSummary) | undefined;
  /** The refresh waiting in the queue (coalesced). */
  pending?: RefreshRequest | undefined;
  /** A refresh asked for while the app's operation ran: done when it ends. */
  deferred?: RefreshRequest | undefined;
  resyncTimer?: TimerHandle | undefined;
  /** A delayed refresh request (self-heal backoff, `requestRefresh(..., afterMs)`): when, and its timer. */
  delayed?: { at: number; timer: TimerHandle } | undefined;
  /** The operation waiting, running or retrying; `next`: one requested meanwhile. */
  operation?: PendingOperation | undefined;
  next?: PendingOperation | undefined;
  /** The operation's attempt is running now (refreshes wait for it). */
  executing: boolean;
  /** The last operation as auto-sync reads it. */
  lastSync?: LastOperation | undefined;
  /** The last auto-sync skip reason reported (reported again only when it changes). */
  lastSkip?: string | undefined;
  /** The drifted resources last reported. */
  lastDrift?: string | undefined;
}

export function maxRefresh(a: RefreshRequest | undefined, b: RefreshRequest): RefreshRequest {
  return !a || b.level > a.level ? b : a;
}

const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * `app` as the request syncs it: a rollback's sources in place of the spec's (`overrideSources`), each Git
 * source pinned to the request's commit (`revision`, or `revisions` for multi-source); unchanged otherwise.
 */
export function pinnedApp(app: Application, request: OperationRequest): Application {
  const sources = request.overrideSources ?? app.sources;
  const revisions = app.multiSource ? request.revisions : request.revision ? [request.revision] : undefined;
  let changed = sources !== app.sources;
  const pinned = sources.map((source, i) => {
    const revision = revisions?.[i];
    if (source.chart || !revision || !FULL_SHA.test(revision) || source.targetRevision === revision)
      return source;
    changed = true;
    return { ...source, targetRevision: revision };
  });
  return changed ? { ...app, sources: pinned } : app;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const PHASES = new Set(['Running', 'Terminating', 'Failed', 'Error', 'Succeeded']);

/**
 * The last operation `status.operationState` of an Application manifest records, with the self-heal
 * attempts of its sync (`operation.sync.selfHealAttemptsCount`); undefined when it records none.
 */
export function lastOperationOf(
  app: Application,
): { last: LastOperation; selfHealAttempts: number; syncedRevision?: string } | undefined {
  const manifest = app.manifest as KubeObject & { status?: unknown };
  const state = obj(obj(manifest.status)?.['operationState']);
  const phase = str(state?.['phase']);
  if (!state || !phase || !PHASES.has(phase) || phase === 'Running' || phase === 'Terminating')
    return undefined;
  const operation = obj(state['operation']);
  const sync = obj(operation?.['sync']);
  const initiatedBy = obj(operation?.['initiatedBy']);
  const result = obj(state['syncResult']);
  const revision = str(result?.['revision']) ?? '';
  const resultSources = result?.['sources'] ?? (result?.['source'] ? [result['source']] : undefined);
  const request: OperationRequest = {
    initiatedBy: {
      automated: initiatedBy?.['automated'] === true,
      ...(str(initiatedBy?.['username']) ? { username: str(initiatedBy?.['username'])! } : {}),
    },
    ...(revision ? { revision } : {}),
    prune: sync?.['prune'] === true,
    dryRun: sync?.['dryRun'] === true,
  };
  const report: OperationReport | undefined = result
    ? {
        phase: phase as OperationReport['phase'],
        message: str(state['message']) ?? '',
        revision,
        startedAt: str(state['startedAt']) ?? '',
        finishedAt: str(state['finishedAt']) ?? '',
        dryRun: request.dryRun,
        retries: typeof state['retryCount'] === 'number' ? state['retryCount'] : 0,
        resources: [],
        plan: [],
      }
    : undefined;
  const attempts = sync?.['selfHealAttemptsCount'];
  return {
    last: {
      request,
      report,
      phase: phase as OperationReport['phase'],
      finishedAt: str(state['finishedAt']) ?? '',
      message: str(state['message']) ?? '',
      // The sources Argo CD synced, in the shape our Application parse gives them is unknown here: only
      // an unchanged spec counts as "the same sources" (compared by the loop on the spec's JSON).
      sources: resultSources === undefined ? '' : JSON.stringify(app.sources),
    },
    selfHealAttempts: typeof attempts === 'number' ? attempts : 0,
    ...(phase === 'Succeeded' && revision ? { syncedRevision: revision } : {}),
  };
}

/**
 * The src/sync request of an operation request (for `LoopOptions.operation` implementations). An operation
 * that does not say `allowEmpty` (one a user wrote: `argocd app sync`, the UI, kubectl) prunes everything
 * it has to, as Argo CD's SyncAppState does; only auto-sync refuses to wipe an app out, and it decides
 * that before it asks (autosync.ts).
 */
export function syncRequestOf(request: OperationRequest): SyncRequest {
  return {
    prune: request.prune,
    dryRun: request.dryRun,
    allowEmpty: request.allowEmpty ?? !request.initiatedBy.automated,
    strategy: request.strategy ?? 'hook',
    resources: request.resources ?? [],
    syncOptions: request.syncOptions ?? {},
  };
}

/** A new app's entry, with the last operation its `status.operationState` records (`lastOperationOf`). */
export function newEntry(key: string, app: Application): LoopEntry {
  const seeded = lastOperationOf(app);
  const state: AppLoopState = { key, app, selfHealAttempts: seeded?.selfHealAttempts ?? 0 };
  if (seeded?.syncedRevision) state.syncedRevision = seeded.syncedRevision;
  if (seeded?.last.report) state.lastOperation = { request: seeded.last.request, report: seeded.last.report };
  return { key, app, specVersion: 0, state, executing: false, lastSync: seeded?.last };
}

/** Sets the app's next resync after a refresh at `level` (a level-1 refresh keeps a pending one). */
export function scheduleResync(
  entry: LoopEntry,
  level: number,
  o: { clock: Clock; everyMs: number; jitterMs: number; random: () => number; request: () => void },
): void {
  if (level < 2 && entry.resyncTimer !== undefined) return;
  if (entry.resyncTimer !== undefined) o.clock.clearTimeout(entry.resyncTimer);
  entry.resyncTimer = undefined;
  if (o.everyMs <= 0) return;
  entry.resyncTimer = o.clock.setTimeout(
    () => {
      entry.resyncTimer = undefined;
      o.request();
    },
    o.everyMs + Math.floor(o.random() * o.jitterMs),
  );
}

/** Cancels the app's resync and delayed refresh. */
export function clearTimers(entry: LoopEntry, clock: Clock): void {
  if (entry.resyncTimer !== undefined) clock.clearTimeout(entry.resyncTimer);
  if (entry.delayed) clock.clearTimeout(entry.delayed.timer);
  entry.resyncTimer = undefined;
  entry.delayed = undefined;
}

/**
 * A level-3 request re-resolves the app's repositories (`forget`); a level-2 one too unless they were
 * re-resolved less than `cacheMs` ago (Argo CD's repo-server revision cache; 0: always); level 0-1 never.
 */
export class RevisionFreshness {
  readonly #forgotten = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly cacheMs: number,
    private readonly forget: (repoURL: string) => void,
  ) {}

  requested(app: Application, level: number): void {
    if (level < 2) return;
    const now = this.clock.now();
    for (const s of app.sources) {
      const repo = repoKey(s.repoURL);
      const last = this.#forgotten.get(repo);
      if (level < 3 && last !== undefined && now - last < this.cacheMs) continue;
      this.#forgotten.set(repo, now);
      this.forget(s.repoURL);
    }
  }
}
