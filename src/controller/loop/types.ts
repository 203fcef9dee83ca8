/**
 * Types of the continuous loop (`sync --watch`, `kubectl gitops controller`; issue 22): the contract between
 * the loop (loop.ts), its triggers (src/source poller and file watcher, live-cache events, the resync timer,
 * Application/AppProject watches), the status writer (src/apps), the shard claimer (src/sharding) and the
 * metrics room (src/metrics, which only listens to `LoopEvent`s). A leaf: imports only types.
 *
 * Names follow Argo CD's application controller (`controller/appcontroller.go`): comparison levels, refresh
 * and operation queues keyed `<namespace>/<name>`, auto-sync and self-heal.
 */
import type {
  AppSummary,
  Application,
  ApplicationSource,
  RetryStrategy,
  StatusRenderedSource,
} from '../../apps/index.js';
import type { KubeObject } from '../../cluster/index.js';
import type { JsonMap as JsonObject } from '../../common/index.js';
import type { HealthStatus } from '../../health/index.js';
import type { OperationReport, ResourceFilter as SyncResourceFilter, TaskResult } from '../../sync/index.js';
import type { AppCondition, AppSyncStatus, ComparisonResult, RunEvent } from '../refresh/index.js';

/**
 * Argo CD's CompareWith (appcontroller.go): 0 nothing (tree only), 1 the recent revision (a watch event on a
 * managed object), 2 the latest revision, 3 the latest with forced revision resolution (a Git change, a
 * hard refresh). Coalescing keeps the highest level requested.
 */
export type CompareLevel = 0 | 1 | 2 | 3;

/** Why a refresh was requested (reported in events, metrics and `-o json`). */
export type RefreshReason =
  | 'initial'
  | 'resync'
  | 'git'
  | 'files'
  | 'drift'
  | 'app-changed'
  | 'project-changed'
  | 'settings-changed'
  | 'operation-done'
  | 'requested';

/** A sync the loop runs for an app: auto-sync, self-heal, or one requested (Application `operation`). */
export interface OperationRequest {
  /** Argo CD's `initiatedBy`: automated for auto-sync and self-heal; a user (or none) otherwise. */
  initiatedBy: { automated: boolean; username?: string };
  /** The revision(s) to sync; unset: the revision the refresh resolved. */
  revision?: string;
  revisions?: string[];
  prune: boolean;
  dryRun: boolean;
  allowEmpty?: boolean;
  /** Set by a self-heal (same revision, drift). */
  selfHeal?: boolean;
  strategy?: 'apply' | 'hook';
  /** Sync options of the request (laid over the app's `spec.syncPolicy.syncOptions`). */
  syncOptions?: Record<string, string>;
  /** `--resource` / the operation's `resources`: hooks are skipped when set. */
  resources?: SyncResourceFilter[];
  /** The operation's retry (Argo CD's `operation.retry`; automated syncs: the app's `syncPolicy.retry`). */
  retry?: RetryStrategy | undefined;
  /** `operation.sync.source(s)` and `manifests` as written (echoed in `operationState`; src/apps). */
  source?: JsonObject | undefined;
  sources?: JsonObject[] | undefined;
  manifests?: string[] | undefined;
  /** A rollback: these sources are rendered instead of the spec's (at `revision(s)`). */
  overrideSources?: ApplicationSource[] | undefined;
  /** A local sync: these objects are the desired state, nothing is rendered. */
  localObjects?: KubeObject[] | undefined;
}

/** What the loop knows about one app (read by the status writer, the watch table and metrics). */
export interface AppLoopState {
  key: string;
  app: Application;
  /** The last comparison (masked report), when one succeeded. */
  comparison?: ComparisonResult;
  /**
   * The last successful refresh's render: each source's resolved revision and type (spec order; Argo CD's
   * `status.sync.revisions`, `status.sourceType(s)`) and the summary of the rendered objects
   * (`status.summary`). Kept through a failed refresh; gone with the app (`removeApp`).
   */
  rendered?: { sources: StatusRenderedSource[]; summary: AppSummary };
  /**
   * Whether the last successful refresh's render held PreDelete / PostDelete hooks: the Application then
   * carries their finalizers (written with the status; src/apps delete-hooks.ts).
   */
  deleteHooks?: { pre: boolean; post: boolean };
  /** The last refresh's error (render, destination, project...), cleared by a successful one. */
  error?: { message: string; exitCode: number; conditions?: AppCondition[] };
  /** When the last refresh finished (Argo CD's `status.reconciledAt`), ISO 8601. */
  reconciledAt?: string;
  /** The operation running now; `terminating` once it is asked to terminate (Argo CD's `Terminating`). */
  running?: {
    request: OperationRequest;
    startedAt: string;
    terminating?: boolean;
    /**
     * What Argo CD persists while it runs: the running message and results so far of the attempt that waits
     * (gitops-engine `setRunningPhase`), or, between attempts, the failed attempt's with "Retrying attempt
     * #N at <time>." (`retryCount` N, `finishedAt` the failure's time), or "Retrying operation. Attempt #N"
     * as the next attempt starts.
     */
    progress?: OperationProgress;
  };
  /** The last finished operation with its request. */
  lastOperation?: { request: OperationRequest; report: OperationReport };
  /** Revision(s) of the last successful sync (Argo CD's `status.sync.revision` after an operation). */
  syncedRevision?: string;
  /** Self-heal attempts at the current revision (Argo CD's selfHealAttemptsCount), reset by a new revision. */
  selfHealAttempts: number;
}

/** The loop's events: everything a one-shot run emits, plus what a continuous loop adds. */
/** A running operation's state as its status shows it (`AppLoopState.running.progress`). */
export interface OperationProgress {
  message: string;
  resources: TaskResult[];
  revision: string;
  retryCount?: number;
  finishedAt?: string;
}

export type LoopEvent =
  | RunEvent
  | { type: 'app-added'; app: string; key: string }
  | { type: 'app-removed'; app: string; key: string }
  | {
      type: 'refreshed';
      app: string;
      key: string;
      reason: RefreshReason;
      level: CompareLevel;
      sync?: AppSyncStatus;
      health?: HealthStatus;
      revision?: string;
      durationMs: number;
      error?: string;
    }
  /** Live objects of the app changed away from Git at the same revision. */
  | { type: 'drift'; app: string; key: string; resources: string[]; healing: boolean }
  | { type: 'auto-sync-skipped'; app: string; key: string; reason: string }
  /**
   * An operation of the app starts (its first attempt) / ends (its last). Named apart from src/sync's
   * engine events `operation-start` / `operation-done`, which the loop passes on too (per attempt).
   */
  | { type: 'app-operation-start'; app: string; key: string; request: OperationRequest }
  /** The running operation's progress changed (`AppLoopState.running.progress`): its status is written. */
  | { type: 'app-operation-progress'; app: string; key: string }
  | {
      type: 'app-operation-done';
      app: string;
      key: string;
      request: OperationRequest;
      phase: OperationReport['phase'];
      message: string;
      revision: string;
      durationMs: number;
    }
  | { type: 'loop-stopping'; reason: string };

export type LoopEventHandler = (event: LoopEvent) => void;

/**
 * What the loop does on its own (the policy): `policy` honours each app's `spec.syncPolicy.automated`
 * (the controller); `all` treats every app as automated with these flags (`sync --watch`, `--self-heal`,
 * `--prune`); `none` only refreshes (and runs requested operations).
 */
export type AutoSyncMode =
  | { mode: 'policy' }
  | { mode: 'all'; prune: boolean; selfHeal: boolean; allowEmpty: boolean }
  | { mode: 'none' };

/** The continuous loop's door (implemented by `Loop`, loop.ts). */
export interface ReconcileLoop {
  /** Starts queues, workers, caches and timers; resolves once stopped (`shutdown` or the signal). */
  run(): Promise<void>;
  /** Adds or replaces an app (a changed spec requests a level-2 refresh, as Argo CD). */
  upsertApp(app: Application): void;
  /** Forgets an app (its running operation is let finish). */
  removeApp(key: string): void;
  /** Queues a refresh (dedupe: an app is never processed twice at once; the highest level wins). */
  requestRefresh(key: string, level: CompareLevel, reason: RefreshReason, afterMs?: number): void;
  /** Queues an operation for the app (runs after a fresh comparison). */
  requestOperation(key: string, request: OperationRequest): void;
  /**
   * Terminates the app's operation (Argo CD's `Terminating` phase, what `argocd app terminate-op` writes):
   * a running attempt stops at its next step as gitops-engine's `Terminate` (running hooks deleted), a
   * waiting one (a retry's backoff, a sync window) at once; it ends Failed "Operation terminated", never
   * retried. False when the app has no operation.
   */
  terminateOperation(key: string): boolean;
  /** Keys of the apps whose sources use this repository (normalized URL), for the Git poller. */
  appsOfRepo(repoURL: string): string[];
  state(key: string): AppLoopState | undefined;
  states(): AppLoopState[];
  /** Stop starting operations, let running ones end (at most `timeoutMs`), stop everything; idempotent. */
  shutdown(timeoutMs: number): Promise<void>;
}
