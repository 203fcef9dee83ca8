/**
 * The continuous loop's options (loop.ts `Loop`): what every program is given (src/controller/refresh
 * `EngineOptions`: the one-shot run's options without what only a run has, whose apps are given once and
 * whose operation and retries are the CLI's), plus the loop's policy,
 * timing and triggers.
 */
import type { Application } from '../../apps/index.js';
import type { Clock } from '../../common/index.js';
import type { OperationReport, RunningProgress } from '../../sync/index.js';
import type { SelfHealBackoff } from './autosync.js';
import type { AutoSyncMode, LoopEventHandler, OperationRequest } from './types.js';
import type { EngineOptions, Reconciliation } from '../refresh/index.js';

/** Argo CD's `timeout.reconciliation` default (argocd-cm; the binary's own default is 120 s). */
export const DEFAULT_APP_RESYNC_MS = 180_000;
/** Argo CD's `timeout.reconciliation.jitter` default. */
export const DEFAULT_APP_RESYNC_JITTER_MS = 60_000;
/** How long terminated operations get to end at shutdown (`terminateOnShutdown`) before they are aborted. */
export const TERMINATE_GRACE_MS = 10_000;
/** How long live-cache events collect before their refreshes are asked. */
export const DEFAULT_EVENT_BATCH_MS = 20;

export interface LoopOptions extends Omit<EngineOptions, 'onEvent'> {
  /** The apps to start with (more come through `upsertApp`). */
  apps?: readonly Application[];
  autoSync: AutoSyncMode;
  /** Argo CD's `timeout.reconciliation`: a level-2 refresh this long after each refresh. Default `DEFAULT_APP_RESYNC_MS`; 0: none. */
  appResyncMs?: number;
  /** Up to this much is added to each resync (`timeout.reconciliation.jitter`). Default 60000. */
  appResyncJitterMs?: number;
  /** `--self-heal-timeout-seconds`, used when `selfHealBackoff` is null. Default 0. */
  selfHealTimeoutMs?: number;
  /** `--self-heal-backoff-*`: default 2 s, x3, cap 300 s; null: the flat timeout. */
  selfHealBackoff?: SelfHealBackoff | null;
  /**
   * Runs one sync (src/sync `runOperation`, with the request's flags); `terminate` aborts when the operation
   * is to be terminated (src/sync `SyncRequest.terminate`).
   */
  operation: (
    app: Application,
    reconciliation: Reconciliation,
    request: OperationRequest,
    signal: AbortSignal,
    terminate: AbortSignal,
    onRunning?: (progress: RunningProgress) => void,
  ) => Promise<OperationReport>;
  onEvent?: LoopEventHandler;
  /** Timers, queue delays and durations (tests: a FakeClock). */
  clock?: Clock;
  /** Random in [0, 1) for the resync jitter. Default Math.random. */
  random?: () => number;
  /** Sharding filter: apps it refuses are neither refreshed nor operated. Default: every app. */
  ownsApp?: (app: Application) => boolean;
  /** Live-cache events are collected this long before their refreshes are asked. Default 20 ms. */
  eventBatchMs?: number;
  /**
   * A level-2 refresh (resync, app change) re-resolves the app's branches unless that repository was
   * re-resolved less than this long ago (Argo CD's repo-server `--revision-cache-expiration`, 3 min there).
   * Default 0: every level-2 refresh sees the newest commit. Level 3 (Git poller, hard refresh) always does.
   */
  revisionCacheMs?: number;
  /** The time running operations get when `signal` aborts. Default 0 (they are aborted at once). */
  shutdownTimeoutMs?: number;
  /**
   * When the shutdown's time is up, terminate the operations still running as Argo CD's `Terminating`
   * does (running hooks deleted; Failed "Operation terminated"; `sync --watch`), giving the termination
   * `TERMINATE_GRACE_MS` before they are aborted. Default false: aborted at once (the controller: Argo CD
   * leaves a stopped controller's operation to the next one).
   */
  terminateOnShutdown?: boolean;
}
