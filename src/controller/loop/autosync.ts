/**
 * Auto-sync and self-heal, decided (a pure function: no I/O, no clock of its own): Argo CD's
 * `controller/appcontroller.go` `autoSync`, `alreadyAttemptedSync` and `selfHealRemainingBackoff`, with the
 * sync-window gate its caller (`processAppRefreshQueueItem`) puts in front (`CanSync(false)`: automated).
 * docs/loop.md states each rule with its source.
 *
 * `decideAutoSync(input)` → `{ action: 'none' }` (nothing to decide: not automated, not OutOfSync, an
 * operation in progress: Argo CD only logs these), `{ action: 'skip', reason }` (Argo CD's message; `error`
 * when Argo CD records it as a SyncError condition; `retryAfterMs` when a self-heal waits for its backoff:
 * the caller asks for a level-2 refresh then), or `{ action: 'sync', request }`.
 *
 * Rules, in Argo CD's order:
 * 1. Only for automated apps (`spec.syncPolicy.automated`, or every app with `AutoSyncMode` `all`), with no
 *    operation in progress, when the app is OutOfSync.
 * 2. Automated prune off and every OutOfSync resource only needs pruning: skip.
 * 3. Already attempted (the last operation synced these revision(s) and these sources, or it ended without a
 *    result at all, whatever the revision): a failed one is never retried by auto-sync (SyncError); a
 *    successful one is synced again only with selfHeal, after the self-heal backoff (attempt n waits
 *    `backoff(n)` since the last operation finished: 0, then duration·factor^(n-1) capped; or the flat
 *    `--self-heal-timeout-seconds` when the backoff is off), as a sync of the OutOfSync resources only,
 *    with the attempt count + 1. A sync to a new revision starts the count at 0 again.
 * 4. Prune on, allowEmpty off, and every resource needs pruning: skip (SyncError, "wipe out").
 * 5. The request: prune and allowEmpty from the policy, the app's sync options, automated initiator, and
 *    retry: the app's `spec.syncPolicy.retry`, else Argo CD's default for automated syncs (limit 5).
 */
import type { Application, RetryStrategy } from '../../apps/index.js';
import { withoutForce } from '../../sync/index.js';
import type { OperationReport, ResourceFilter } from '../../sync/index.js';
import type { AutoSyncMode, OperationRequest } from './types.js';
import type { ComparisonResult } from '../refresh/index.js';

/** Argo CD's self-heal backoff (`--self-heal-backoff-*` defaults of Argo CD 3.x: 2 s, x3, cap 300 s). */
export interface SelfHealBackoff {
  durationMs: number;
  factor: number;
  maxDurationMs: number;
}

export const DEFAULT_SELF_HEAL_BACKOFF: SelfHealBackoff = {
  durationMs: 2_000,
  factor: 3,
  maxDurationMs: 300_000,
};

/**
 * The retry of an automated sync when the app sets none (autoSync: `Retry: {Limit: 5}`; the backoff is
 * RetryStrategy's default: 5 s, x2, 3 m).
 */
export const DEFAULT_AUTOMATED_RETRY: RetryStrategy = {
  limit: 5,
  backoff: { durationMs: 5_000, factor: 2, maxDurationMs: 180_000 },
  refresh: false,
};

/** The last operation as auto-sync reads it (Argo CD's `status.operationState`). */
export interface LastOperation {
  request: OperationRequest;
  /** Undefined when the operation ended without a result (it threw before syncing anything). */
  report?: OperationReport | undefined;
  phase: OperationReport['phase'];
  /** ISO 8601; when it ended. */
  finishedAt: string;
  /** Its final message (Argo CD's `operationState.message`, "(retried N times)." included). */
  message?: string | undefined;
  /** The app's sources when it ran (`JSON.stringify(app.sources)`): Argo CD's `syncResult.source(s)`. */
  sources: string;
}

export interface AutoSyncInput {
  app: Application;
  mode: AutoSyncMode;
  comparison: ComparisonResult;
  /** An operation is running or waiting (Argo CD's `app.Operation != nil`). */
  operationInProgress: boolean;
  lastOperation?: LastOperation | undefined;
  /** Self-heal attempts at the last operation's revision (Argo CD's SelfHealAttemptsCount). */
  selfHealAttempts: number;
  /** Wall clock, ms since the epoch. */
  now: number;
  /** `--self-heal-timeout-seconds` (used when `selfHealBackoff` is undefined). Default 0. */
  selfHealTimeoutMs?: number;
  /** Undefined: the flat timeout. */
  selfHealBackoff?: SelfHealBackoff | undefined;
  /** Set when the app's sync windows refuse an automated sync now: the blocking message. */
  syncWindowBlocked?: string | undefined;
}

export type AutoSyncDecision =
  | { action: 'none' }
  | { action: 'skip'; reason: string; error?: boolean; retryAfterMs?: number }
  | { action: 'sync'; request: OperationRequest; selfHealAttempts: number };

/** The automated policy that applies to `app` under `mode`, if any. */
export function automatedPolicy(
  app: Application,
  mode: AutoSyncMode,
): { prune: boolean; selfHeal: boolean; allowEmpty: boolean } | undefined {
  if (mode.mode === 'none') return undefined;
  if (mode.mode === 'all') return { prune: mode.prune, selfHeal: mode.selfHeal, allowEmpty: mode.allowEmpty };
  return app.syncPolicy.automated;
}

/** `selfHealRemainingBackoff`: how long attempt `attempts` must still wait (<= 0: now). */
export function selfHealRemainingMs(
  attempts: number,
  sinceFinishedMs: number | undefined,
  timeoutMs: number,
  backoff: SelfHealBackoff | undefined,
): number {
  let delay: number;
  if (!backoff) delay = timeoutMs;
  else {
    // wait.Backoff.Step() called `attempts` times: the last step's duration (0 for no step).
    delay = 0;
    let duration = backoff.durationMs;
    let capped = false;
    for (let i = 0; i < attempts; i++) {
      delay = duration;
      if (capped) continue;
      duration *= backoff.factor;
      if (backoff.maxDurationMs > 0 && duration > backoff.maxDurationMs) {
        duration = backoff.maxDurationMs;
        capped = true;
      }
    }
  }
  return sinceFinishedMs === undefined ? delay : delay - sinceFinishedMs;
}

const revisionsText = (revisions: readonly string[]): string => `[${revisions.join(' ')}]`;

export function decideAutoSync(input: AutoSyncInput): AutoSyncDecision {
  const { app, comparison } = input;
  const policy = automatedPolicy(app, input.mode);
  if (!policy || input.operationInProgress) return { action: 'none' };
  if (comparison.sync !== 'OutOfSync') return { action: 'none' };
  if (input.syncWindowBlocked)
    return { action: 'skip', reason: `Sync prevented by sync window: ${input.syncWindowBlocked}` };
  const resources = comparison.resources;
  if (!policy.prune && resources.every((r) => r.status === 'Synced' || r.requiresPruning)) {
    return {
      action: 'skip',
      reason: 'need to prune extra resources only but automated prune is disabled',
    };
  }
  const desired = [comparison.revision];
  const retry = app.syncPolicy.retry ?? DEFAULT_AUTOMATED_RETRY;
  const request: OperationRequest = {
    initiatedBy: { automated: true },
    revision: comparison.revision,
    prune: policy.prune,
    dryRun: false,
    allowEmpty: policy.allowEmpty,
    // The spec's options as the operation's, without Force (Argo CD's auto-sync never forces).
    syncOptions: withoutForce(app.syncPolicy.options),
    retry,
  };
  let selfHealAttempts = 0;
  const last = input.lastOperation;
  const attempted = alreadyAttempted(app, desired, last);
  if (attempted) {
    const lastRevisions = last!.report ? [last!.report.revision] : [];
    if (last!.phase !== 'Succeeded') {
      return {
        action: 'skip',
        error: true,
        reason:
          `Failed last sync attempt to ${revisionsText(lastRevisions)}: ${last!.message ?? last!.report?.message ?? ''}`.trimEnd(),
      };
    }
    if (!policy.selfHeal) {
      return { action: 'skip', reason: `most recent sync already to ${revisionsText(desired)}` };
    }
    const finished = Date.parse(last!.finishedAt);
    const remaining = selfHealRemainingMs(
      input.selfHealAttempts,
      Number.isNaN(finished) ? undefined : input.now - finished,
      input.selfHealTimeoutMs ?? 0,
      input.selfHealBackoff,
    );
    if (remaining > 0) {
      return {
        action: 'skip',
        reason: `already attempted sync to ${revisionsText(lastRevisions)} (self-heal retrying in ${Math.ceil(remaining / 1000)}s)`,
        retryAfterMs: remaining,
      };
    }
    selfHealAttempts = input.selfHealAttempts + 1;
    request.selfHeal = true;
    request.resources = resources
      .filter((r) => r.status !== 'Synced')
      .map((r): ResourceFilter => ({ group: r.group, kind: r.kind, name: r.name }));
  }
  if (policy.prune && !policy.allowEmpty && resources.every((r) => r.requiresPruning)) {
    return {
      action: 'skip',
      error: true,
      reason: `Skipping sync attempt to ${revisionsText(desired)}: auto-sync will wipe out all resources`,
    };
  }
  return { action: 'sync', request, selfHealAttempts };
}

/** `alreadyAttemptedSync` (revisions always compared: no manifest-generate-paths shortcut). */
function alreadyAttempted(
  app: Application,
  desired: readonly string[],
  last: LastOperation | undefined,
): boolean {
  if (!last) return false;
  // Ended without a result: "very likely that an error happened"; attempted, whatever the revision.
  if (!last.report) return last.phase !== 'Running' && last.phase !== 'Terminating';
  if (desired.length !== 1 || last.report.revision !== desired[0]) return false;
  return last.sources === JSON.stringify(app.sources);
}
